// The "prepare" script that `npm ci` and `npm install` run: makes the template of the embedded database (PGlite's
// initdb once, into .cache/pglite-template) that a first `npm start` copies, and that every database in memory (the
// tests) starts from, instead of running initdb, which peaks at ~510 MiB RSS for seconds
// (src/store/pglite-database.ts, src/store/pglite-memory.ts). Plain JavaScript like src/start.js, so that an
// install on an older Node (e.g. without the "node" devDependency) is not failed by a .ts file. Never fails the
// install: without a template, a first start runs initdb as before.
const major = Number(process.versions.node.split('.')[0])
if (major < 24) {
  process.stderr.write(`No database template made (Node ${process.versions.node}); a first start will run initdb.\n`)
} else {
  const started = Date.now()
  import('../src/store/pglite-database.ts')
    .then((database) => database.buildDatabaseTemplate())
    .then((dir) => {
      process.stderr.write(`Database template made in ${dir} (${Date.now() - started} ms).\n`)
    })
    .catch((error) => {
      process.stderr.write(`No database template made (${error?.message ?? error}); a first start will run initdb.\n`)
    })
}

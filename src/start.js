// The entry point of `npm start`. Plain JavaScript on purpose: an older Node cannot even load a .ts file (Node 20
// fails with ERR_UNKNOWN_FILE_EXTENSION), so the version is checked here, where any Node can read it.
const major = Number(process.versions.node.split('.')[0])
if (major < 24) {
  process.stderr.write(
    `The Mobility Aggregation Service needs Node.js 24 or newer; this is Node ${process.versions.node} (${process.execPath}). ` +
      'Run `npm ci` (it installs Node 24 as the "node" devDependency) and then `npm start`, or start it with `npx node src/main.ts`.\n',
  )
  process.exit(1)
}
// Not a top-level await, so that even a Node too old for that can read this file and print the hint above.
// A first start creates the embedded database before the service loads (src/store/pglite-database.ts).
import('./store/pglite-database.ts')
  .then((database) => database.prepareEmbeddedDatabase())
  .catch(() => {})
  .then(() => import('./main.ts'))
  .catch((error) => {
    process.stderr.write(`Failed to start: ${error?.stack ?? error}\n`)
    process.exit(1)
  })

import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

/**
 * The README and the guides under docs/ link only to what the repository holds: every relative link names a file of
 * the repository, every `#anchor` a heading of its file. Links to web pages (https:) are not followed.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const pages = () => [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'), { recursive: true })
    .map((f) => join(ROOT, 'docs', String(f)))
    .filter((f) => f.endsWith('.md')),
]

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, ... */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const line of withoutCode(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

/** The text without fenced code blocks (their lines emptied, so headings in shell comments are not headings). */
const withoutCode = (markdown: string) => {
  let fenced = false
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced
        return ''
      }
      return fenced ? '' : line
    })
    .join('\n')
}

/** `[text](target)` outside code (inline code spans are dropped first: their brackets are not links). */
const links = (markdown: string) =>
  [
    ...withoutCode(markdown)
      .replace(/`[^`\n]*`/g, '')
      .matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g),
  ].map((m) => m[1])

describe('links of the README and the guides', () => {
  it('finds the anchors GitHub makes', () => {
    const found = anchors(
      '# API guide\n## One machine, several processes: `WORKERS`\n## Cars\n## Cars\n```\n# not a heading\n```',
    )
    assert.deepEqual([...found], ['api-guide', 'one-machine-several-processes-workers', 'cars', 'cars-1'])
  })

  it('resolves every relative link to a file of the repository and every anchor to a heading', () => {
    const broken: string[] = []
    for (const page of pages()) {
      const text = readFileSync(page, 'utf8')
      const name = relative(ROOT, page)
      for (const link of links(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue
        const [path, anchor] = link.split('#')
        const target = path ? resolve(dirname(page), decodeURIComponent(path)) : page
        if (relative(ROOT, target).startsWith('..')) {
          broken.push(`${name}: ${link} leaves the repository`)
          continue
        }
        if (!existsSync(target)) {
          broken.push(`${name}: ${link} names no file`)
          continue
        }
        if (anchor && !(statSync(target).isFile() && anchors(readFileSync(target, 'utf8')).has(anchor))) {
          broken.push(`${name}: ${link} names no heading`)
        }
      }
    }
    assert.deepEqual(broken, [])
  })

  it('links the README to the API guide', () => {
    assert.ok(links(readFileSync(join(ROOT, 'README.md'), 'utf8')).includes('docs/api-guide.md'))
  })
})

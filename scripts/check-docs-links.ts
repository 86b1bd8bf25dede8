// Every link between the docs' pages lands, anchors included, checked offline
// after `vitepress build` (which fails on a link to a missing page, but not on a
// missing anchor): each href of the built site that stays on the site must name a
// page or file of the build, and its #fragment an id on that page. The README,
// read on the repository's host rather than on the site, is checked apart: its
// relative links must name files of the repository, and a #fragment into a
// Markdown file a heading of that file, slugged as GitHub slugs them.
//   tsx scripts/check-docs-links.ts
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..');
const SITE = join(ROOT, 'docs', '.vitepress', 'dist');

const problems: string[] = [];

function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** A percent-encoded path or fragment decoded; undefined when it is malformed (then it names nothing). */
function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/** The built file a site path names (clean urls: `/guide/x` is guide/x.html, `/databases/` databases/index.html). */
function builtFile(path: string): string | undefined {
  const candidates = [path, `${path}.html`, join(path, 'index.html')];
  return candidates.map((candidate) => join(SITE, candidate)).find((file) => existsSync(file) && statSync(file).isFile());
}

const idsOf = new Map<string, Set<string>>();
function ids(file: string): Set<string> {
  let found = idsOf.get(file);
  if (!found) {
    const html = readFileSync(file, 'utf8');
    found = new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((match) => decodeEntities(match[1])));
    idsOf.set(file, found);
  }
  return found;
}

function checkSite(): number {
  if (!existsSync(SITE)) throw new Error(`no built site at ${relative(ROOT, SITE)}: run \`npm run docs\``);
  const pages = filesUnder(SITE).filter((file) => file.endsWith('.html'));
  let links = 0;
  for (const page of pages) {
    const pagePath = '/' + relative(SITE, page).split('\\').join('/');
    const html = readFileSync(page, 'utf8');
    for (const match of html.matchAll(/\shref="([^"]*)"/g)) {
      const href = decodeEntities(match[1]);
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // another site, mailto:, …
      links++;
      const [pathPart, fragment] = href.split('#', 2) as [string, string | undefined];
      const path = decoded(pathPart === '' ? pagePath : pathPart.startsWith('/') ? pathPart : posix.join(posix.dirname(pagePath), pathPart));
      const target = path === undefined ? undefined : builtFile(path);
      if (!target) {
        problems.push(`${relative(SITE, page)}: ${href} names no page of the site`);
        continue;
      }
      if (fragment && target.endsWith('.html') && !ids(target).has(decoded(fragment) ?? fragment)) {
        problems.push(`${relative(SITE, page)}: ${href} names no anchor of ${relative(SITE, target)}`);
      }
    }
  }
  return links;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function githubAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const repeat = seen.get(slug) ?? 0;
    seen.set(slug, repeat + 1);
    anchors.add(repeat ? `${slug}-${repeat}` : slug);
  }
  return anchors;
}

function checkReadme(): number {
  // Code blocks hold no links; inline links (with or without a title or <…>), reference definitions and HTML do.
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  const hrefs = [
    ...[...readme.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g)].map((match) => match[1]),
    ...[...readme.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/gm)].map((match) => match[1]),
    ...[...readme.matchAll(/<(?:a|img)\s[^>]*?\b(?:href|src)\s*=\s*["']([^"']*)["']/gi)].map((match) => decodeEntities(match[1])),
  ];
  let links = 0;
  for (const href of hrefs) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
    links++;
    const [path, fragment] = href.split('#', 2) as [string, string | undefined];
    const file = path === '' ? join(ROOT, 'README.md') : join(ROOT, decoded(path) ?? '\0');
    if (!existsSync(file)) {
      problems.push(`README.md: ${href} names no file of the repository`);
      continue;
    }
    if (fragment && file.endsWith('.md') && !githubAnchors(readFileSync(file, 'utf8')).has(fragment)) {
      problems.push(`README.md: ${href} names no heading of ${relative(ROOT, file)}`);
    }
  }
  return links;
}

const siteLinks = checkSite();
const readmeLinks = checkReadme();
if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`${problems.length} broken link(s)`);
  process.exit(1);
}
console.log(`${siteLinks} links of the built site and ${readmeLinks} of the README land, anchors included`);

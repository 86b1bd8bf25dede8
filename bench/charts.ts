// The results as pictures (SVG, no dependencies): each workload's speed
// relative to the raw driver per database, and an agent turn's statements
// per system. `npm run bench` writes them beside latest.md; the docs'
// performance page shows them.
import { LABELS } from './databases.js';
import type { Report } from './report.js';
import { COLUMNS } from './targets/index.js';
import type { TargetKey } from './targets/target.js';
import { WORKLOADS } from './workloads.js';

type Database = Report['databases'][number];

const COLORS: Record<string, string> = { SQLite: '#4c78a8', PostgreSQL: '#f58518', MariaDB: '#54a24b' };
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12"';
const LABEL_WIDTH = 400;
const BAR_WIDTH = 420;
const BAR = 9;

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
const text = (x: number, y: number, content: string, extra = '') => `<text x="${x}" y="${y}" ${extra}>${escape(content)}</text>`;
const svg = (width: number, height: number, body: string[], title: string) =>
  [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} role="img" aria-label="${escape(title)}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');

/** The three lone databases' tables (the clusters' rows compare other things). */
const lone = (report: Report) => report.databases.filter((database) => database.label === LABELS[database.engine]);

/** Each row's label without its sizes; the turn's in short. */
const SHORT_LABELS = new Map(
  WORKLOADS.flatMap((workload) => workload.rows.map((row) => [row.key, row.key === 'turn' ? 'agent turn (the whole turn)' : row.label])),
);

function legend(y: number, names: string[]): string[] {
  return names.flatMap((name, i) => [
    `<rect x="${LABEL_WIDTH + i * 120}" y="${y - 9}" width="10" height="10" fill="${COLORS[name]}"/>`,
    text(LABEL_WIDTH + 14 + i * 120, y, name),
  ]);
}

/**
 * The store on its url relative to the raw driver, per workload and database: above 1x it is faster.
 * The scale ends at 2x; a longer bar is cut there, its value written beside it.
 */
export function ratioChart(report: Report): string {
  const databases = lone(report);
  const keys = [...SHORT_LABELS.keys()].filter((key) =>
    databases.some((database) => database.rows.find((row) => row.key === key)?.cells.ours?.ratio !== undefined),
  );
  const max = 2;
  const x = (ratio: number) => LABEL_WIDTH + (Math.min(ratio, max) / max) * BAR_WIDTH;
  const rowHeight = databases.length * (BAR + 2) + 10;
  const top = 56;
  const height = top + keys.length * rowHeight + 30;
  const body: string[] = [
    text(10, 20, 'nestjs-agent-store (on its url) ÷ the raw driver doing the same work, in the same run; above 1x is faster', 'font-weight="600"'),
    ...legend(
      40,
      databases.map((database) => database.label),
    ),
  ];
  keys.forEach((key, k) => {
    const y = top + k * rowHeight;
    body.push(text(10, y + rowHeight / 2, SHORT_LABELS.get(key)!));
    databases.forEach((database, d) => {
      const ratio = database.rows.find((row) => row.key === key)?.cells.ours?.ratio;
      const barY = y + d * (BAR + 2);
      if (ratio === undefined) return void body.push(text(LABEL_WIDTH + 4, barY + BAR - 1, `${database.label}: n/a`, 'font-size="10" fill="#888"'));
      body.push(`<rect x="${LABEL_WIDTH}" y="${barY}" width="${(x(ratio) - LABEL_WIDTH).toFixed(1)}" height="${BAR}" fill="${COLORS[database.label]}"/>`);
      body.push(text(x(ratio) + 4, barY + BAR - 1, `${ratio.toFixed(2)}x${ratio > max ? ' →' : ''}`, 'font-size="10"'));
    });
  });
  const bottom = top + keys.length * rowHeight;
  for (const mark of [0.5, 0.8, 1, 1.5, 2]) {
    body.push(`<line x1="${x(mark)}" y1="${top - 6}" x2="${x(mark)}" y2="${bottom}" stroke="#888" stroke-dasharray="${mark === 1 ? '4 2' : '1 3'}"/>`);
    body.push(text(x(mark) - 10, bottom + 16, `${mark}x`, 'font-size="10"'));
  }
  return svg(LABEL_WIDTH + BAR_WIDTH + 60, height, body, 'The store relative to the raw driver, per workload and database');
}

/** The systems of the turn's chart, in the tables' order. */
const TURN_SYSTEMS: TargetKey[] = ['ours', 'oursClient', 'oursClientTx', 'raw', 'mastra', 'langgraph', 'langgraphOurs'];
const SYSTEM_LABELS: Partial<Record<TargetKey, string>> = { raw: 'raw driver, the minimum written by hand' };

/** An agent turn's statements per system and database, a dashed line at the raw minimum plus one. */
export function turnChart(report: Report): string {
  const databases = lone(report).filter((database) => database.rows.some((row) => row.key === 'turnStatements'));
  const trips = (database: Database, key: TargetKey) => {
    const cell = database.rows.find((row) => row.key === 'turnStatements')?.cells[key];
    return cell && 'value' in cell ? cell.value : undefined;
  };
  const max = Math.max(
    1,
    ...databases.flatMap((database) => TURN_SYSTEMS.map((key) => trips(database, key) ?? 0)),
    ...databases.map((database) => (trips(database, 'raw') ?? 0) + 1),
  );
  const x = (value: number) => LABEL_WIDTH + (value / max) * BAR_WIDTH;
  const body: string[] = [
    text(10, 20, 'An agent turn: statements sent to the database (on PostgreSQL each is a round trip; SQLite runs them in process)', 'font-weight="600"'),
  ];
  let y = 44;
  for (const database of databases) {
    body.push(text(10, y, database.label, 'font-weight="600"'));
    y += 14;
    const start = y;
    for (const key of TURN_SYSTEMS) {
      const value = trips(database, key);
      if (value === undefined) continue;
      const label = SYSTEM_LABELS[key] ?? COLUMNS.find((column) => column.key === key)!.label;
      body.push(text(20, y + BAR, label));
      body.push(`<rect x="${LABEL_WIDTH}" y="${y}" width="${(x(value) - LABEL_WIDTH).toFixed(1)}" height="${BAR + 2}" fill="${COLORS[database.label]}"/>`);
      body.push(text(x(value) + 4, y + BAR, String(value), 'font-size="10"'));
      y += BAR + 8;
    }
    const raw = trips(database, 'raw');
    if (raw !== undefined) {
      body.push(`<line x1="${x(raw + 1)}" y1="${start - 12}" x2="${x(raw + 1)}" y2="${y - 4}" stroke="#444" stroke-dasharray="4 2"/>`);
      body.push(text(x(raw + 1) + 4, start - 4, 'raw minimum + 1', 'font-size="10" fill="#444"'));
    }
    y += 16;
  }
  return svg(LABEL_WIDTH + BAR_WIDTH + 60, y + 4, body, "An agent turn's statements per system and database");
}

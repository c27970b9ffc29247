import Database from 'better-sqlite3';
import { categoryFilter, eventTypeFilter } from '../port/event-filter';
import { sqlPrefixFilter } from './sql-prefix-filter';

describe('sqlPrefixFilter', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE events (position INTEGER PRIMARY KEY, stream_name TEXT, event_type TEXT)');
  const rows: Array<[string, string]> = [
    ['run-1', 'RunRequested'],
    ['run', 'RunClaimed'],
    ['run.', 'ToolExecuted'],
    ['runs-1', 'ToolExecutedLater'],
    ['audit-1', 'AuditRecorded'],
    ['rum-1', 'ToolExecute'],
    ['run-', 'Audit'],
  ];
  rows.forEach(([stream, type], i) => db.prepare('INSERT INTO events VALUES (?, ?, ?)').run(i + 1, stream, type));
  const select = (filter: Parameters<typeof sqlPrefixFilter>[0]) => {
    const sql = sqlPrefixFilter(filter);
    if (sql === null) throw new Error('no SQL filter');
    return (db.prepare(`SELECT position FROM events WHERE ${sql.condition} ORDER BY position`).all(...sql.parameters) as Array<{ position: number }>).map((r) => r.position);
  };

  it('selects exactly the events whose stream name or type starts with a prefix', () => {
    expect(select(categoryFilter('run'))).toEqual([1, 7]);
    expect(select(categoryFilter('run', 'audit'))).toEqual([1, 5, 7]);
    expect(select(eventTypeFilter('ToolExecuted'))).toEqual([3, 4]);
    expect(select(eventTypeFilter('Audit', 'Run'))).toEqual([1, 2, 5, 7]);
  });

  it('gives up (the caller filters in JavaScript) for prefixes outside printable ASCII or ending with ~', () => {
    expect(sqlPrefixFilter(categoryFilter('läufe'))).toBeNull();
    expect(sqlPrefixFilter(eventTypeFilter('Run~'))).toBeNull();
    expect(sqlPrefixFilter(eventTypeFilter('Run\n'))).toBeNull();
  });
});

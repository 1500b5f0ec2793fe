/**
 * One search in a new process, for bench/corpus-search.ts's cold figures: opens the store, the
 * corpus and searches once, and prints the milliseconds from before opening the store to the
 * ranked passages (Node's own start-up left out), with the CPU time of that span.
 *
 *   node --import tsx bench/support/corpus-search-once.ts STORE CORPUS K "question"
 */
import { Corpus } from '../../src/corpus/index.js';
import { openDatabase } from '../../src/store/database.js';

const [store, name, k, query] = process.argv.slice(2) as [string, string, string, string];
const cpu = process.cpuUsage();
const started = performance.now();
const db = openDatabase(store);
const hits = Corpus.open(db, name).searchIds(query, Number(k));
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
db.close();
process.stdout.write(`${JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, ids: hits.map((h) => h.id) })}\n`);

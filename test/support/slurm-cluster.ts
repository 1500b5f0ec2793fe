/**
 * A one-node Slurm cluster for tests, on this machine: slurmctld and slurmd as root with Debian's
 * slurm-wlm and munge (.ci/run installs them), `ProctrackType=proctrack/linuxproc` and
 * `TaskPlugin=task/none` (no cgroups needed), its state in a temporary folder. It boots in a few
 * seconds. `slurmUnavailable` says why it cannot (not root, Slurm missing, a controller of someone
 * else's running) instead of failing, so the tests that need it skip with that reason. One such
 * cluster runs on a machine at a time (Slurm's ports are fixed): a suite whose cluster is up holds
 * a lock, and another suite's `startSlurm` (CI runs one suite per Node line at once) waits for it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { cpus, freemem, hostname, totalmem } from 'node:os';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

export interface SlurmCluster {
  /** SLURM_CONF for every Slurm command and llmkb call. */
  env: NodeJS.ProcessEnv;
  dir: string;
  /** Runs a Slurm command (sbatch, squeue, scancel) against this cluster. */
  run(command: string, args: string[]): { status: number | null; stdout: string; stderr: string };
  /** Waits until none of the jobs is in the queue (bounded); false on time-out. */
  waitGone(ids: string[], ms: number): Promise<boolean>;
  stop(): Promise<void>;
}

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** A live process of that name (a zombie, not yet reaped, is none). */
function running(name: string): boolean {
  const r = spawnSync('ps', ['-C', name, '-o', 'stat='], { encoding: 'utf8' });
  return (r.stdout ?? '').split('\n').some((state) => state.trim() !== '' && !state.trim().startsWith('Z'));
}

/** Why a cluster cannot start here, or undefined. */
export function slurmUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'a one-node Slurm cluster needs Linux';
  if (process.getuid?.() !== 0) return 'starting slurmctld and slurmd needs root (CI runs as root)';
  const missing = ['slurmctld', 'slurmd', 'sbatch', 'squeue', 'scancel', 'munged'].filter((c) => !onPath(c) && !existsSync(`/usr/sbin/${c}`));
  if (missing.length) return `Slurm is not installed (${missing.join(', ')} missing): apt-get install slurm-wlm munge, as .ci/run does`;
  if ((running('slurmctld') || running('slurmd')) && lockHolder() === undefined)
    return 'a Slurm controller or node daemon already runs on this machine; these tests start their own';
  return undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The lock of the machine's one test cluster: a folder made atomically, with its holder's pid (in /tmp whatever TMPDIR says: CI gives each suite its own). */
const LOCK = '/tmp/llmkb-slurm-test-cluster.lock';

/** The pid of the live process whose cluster is up, or undefined. */
function lockHolder(): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
  } catch {
    return undefined;
  }
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** Takes the lock, waiting (up to 20 minutes) while another suite's cluster is up; a dead holder's lock is taken over. */
async function takeLock(): Promise<void> {
  const end = Date.now() + 20 * 60_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // Made but its pid not written yet: give the holder a moment before judging it dead.
    if (lockHolder() === undefined) {
      await sleep(500);
      if (lockHolder() === undefined) rmSync(LOCK, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > end) throw new Error(`another test's Slurm cluster (pid ${lockHolder()}, lock ${LOCK}) was up for 20 minutes`);
    await sleep(1000);
  }
}

export async function startSlurm(): Promise<SlurmCluster> {
  await takeLock();
  const dir = tempDir('llmkb-slurm-');
  for (const sub of ['state', 'spool', 'log']) mkdirSync(join(dir, sub));
  const host = hostname().split('.')[0]!;
  const memory = Math.max(1024, Math.floor(Math.min(totalmem(), freemem() * 2) / 2 ** 20) - 1024);
  const conf = join(dir, 'slurm.conf');
  writeFileSync(
    conf,
    [
      'ClusterName=llmkbtest',
      `SlurmctldHost=${host}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      'AuthType=auth/munge',
      `StateSaveLocation=${dir}/state`,
      `SlurmdSpoolDir=${dir}/spool`,
      `SlurmctldPidFile=${dir}/slurmctld.pid`,
      `SlurmdPidFile=${dir}/slurmd.pid`,
      `SlurmctldLogFile=${dir}/log/ctld.log`,
      `SlurmdLogFile=${dir}/log/d.log`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SchedulerType=sched/backfill',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'ReturnToService=2',
      'MpiDefault=none',
      'JobAcctGatherType=jobacct_gather/none',
      // Cancelled tasks are killed quickly, and a finished job leaves the queue at once.
      'KillWait=5',
      'MinJobAge=2',
      `NodeName=${host} CPUs=${cpus().length} RealMemory=${memory} State=UNKNOWN`,
      `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
      '',
    ].join('\n'),
  );
  const env = { ...process.env, SLURM_CONF: conf };
  // munge: the key Debian's package leaves (or a new one), and the daemon if it is not running.
  const key = '/etc/munge/munge.key';
  if (!existsSync(key) || statSync(key).size === 0) writeFileSync(key, randomBytes(1024));
  const uid = Number(execFileSync('id', ['-u', 'munge'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'munge'], { encoding: 'utf8' }).trim());
  chownSync(key, uid, gid);
  chmodSync(key, 0o400);
  mkdirSync('/run/munge', { recursive: true });
  chownSync('/run/munge', uid, gid);
  if (!running('munged')) spawnSync('/usr/sbin/munged', ['--force'], { stdio: 'ignore' });
  const daemon = (name: string) => {
    const r = spawnSync(name, ['-f', conf], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${name} did not start (exit ${r.status}): ${r.stderr}`);
  };
  // The last suite's daemons may still be ending.
  for (let i = 0; i < 100 && (running('slurmctld') || running('slurmd')); i++) await sleep(300);
  try {
    // A credential round trip: munged answers. On a machine where this suite started it (a fresh
    // CI machine), daemons started before its socket is up could not authenticate each other.
    for (let i = 0; spawnSync('sh', ['-c', 'munge -n | unmunge'], { stdio: 'ignore' }).status !== 0; i++) {
      if (i === 100) throw new Error('munged did not answer `munge -n | unmunge` in 10 s');
      await sleep(100);
    }
    daemon('slurmctld');
    daemon('slurmd');
  } catch (error) {
    rmSync(LOCK, { recursive: true, force: true });
    throw error;
  }
  const run = (command: string, args: string[]) => {
    const r = spawnSync(command, args, { env, encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };
  const pid = (name: string): number | undefined => {
    try {
      return Number(readFileSync(join(dir, `${name}.pid`), 'utf8').trim()) || undefined;
    } catch {
      return undefined;
    }
  };
  const stop = async () => {
    for (const name of ['slurmd', 'slurmctld']) {
      const p = pid(name);
      if (p === undefined) continue;
      try {
        process.kill(p, 'SIGTERM');
      } catch {
        continue;
      }
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(p, 0);
        } catch {
          break;
        }
        await sleep(100);
      }
    }
    rmSync(dir, { recursive: true, force: true });
    rmSync(LOCK, { recursive: true, force: true });
  };
  const started = Date.now();
  while (!/idle/.test(run('sinfo', ['-h', '-o', '%t']).stdout)) {
    if (Date.now() - started > 30_000) {
      const log = (f: string) =>
        existsSync(join(dir, 'log', f))
          ? readFileSync(join(dir, 'log', f), 'utf8')
              .split('\n')
              .slice(-10)
              .join('\n')
          : '';
      await stop();
      throw new Error(`the one-node cluster did not come up in 30 s:\n${log('ctld.log')}\n${log('d.log')}`);
    }
    await sleep(300);
  }
  const waitGone = async (ids: string[], ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const q = run('squeue', ['-h', '-o', '%i', '-j', ids.join(',')]);
      if (q.stdout.trim() === '') return true;
      await sleep(500);
    }
    return false;
  };
  return { env, dir, run, waitGone, stop };
}

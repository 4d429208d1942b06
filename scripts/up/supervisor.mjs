// Runs every planned replica as a child process, restarts one that exits with
// backoff, and keeps the state file (<state dir>/up.json) current for operators and tests.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describeExit, exitVerdict, nextRestartStreak, restartDelayMs } from './plan.mjs';

// Enough of a refusing app's stderr to show every variable it names.
const STDERR_TAIL_CHARS = 4_000;
// A laptop's callbacks go to a local receiver; production leaves the allowlist empty.
const DEVELOPMENT_DEFAULTS = { CALLBACK_URL_ALLOWLIST: '127.0.0.1,::1,localhost' };

export class Supervisor {
  /**
   * @param onStart, onExit  told of every process start and exit (the proxy follows the gateways)
   * @param onRefused  told when an app refused its configuration: nothing will start it again
   */
  constructor({ root, plan, env, stateDir, logsToStdout, url, proxied, onStart = () => {}, onExit = () => {}, onRefused = () => {} }) {
    this.root = root;
    this.env = env;
    this.stateFile = join(stateDir, 'up.json');
    this.logDir = join(stateDir, 'logs');
    this.logsToStdout = logsToStdout;
    this.url = url;
    this.proxied = proxied;
    this.hooks = { onStart, onExit, onRefused };
    this.status = 'starting';
    this.stopRequested = false;
    this.allExited = null;
    mkdirSync(this.logDir, { recursive: true });
    this.replicas = plan.map((entry) => ({
      ...entry,
      logFile: join(this.logDir, entry.logName),
      log: createWriteStream(join(this.logDir, entry.logName), { flags: 'a' }),
      child: null,
      pid: null,
      status: 'starting',
      restarts: 0,
      streak: 0,
      startedAt: null,
      lastExit: null,
      timer: null,
      stderrTail: '',
    }));
    // A supervisor that dies of a bug must not leave its apps running unsupervised.
    process.on('exit', () => {
      for (const replica of this.replicas) replica.child?.kill('SIGTERM');
    });
  }

  start() {
    for (const replica of this.replicas) this.spawn(replica);
  }

  setStatus(status) {
    this.status = status;
    this.writeState();
  }

  /** Relative to where the operator stands when it is below it, else in full. */
  logPath(replica) {
    const path = relative(process.cwd(), replica.logFile);
    return path.startsWith('..') ? replica.logFile : path;
  }

  spawn(replica) {
    replica.timer = null;
    const child = spawn(process.execPath, [join(this.root, 'dist/apps', replica.app, 'src/main.js')], {
      cwd: this.root,
      env: {
        ...DEVELOPMENT_DEFAULTS,
        ...this.env,
        PORT: String(replica.port),
        // Gateways behind the proxy are reached through it only, and each has a metrics port of its own.
        ...(replica.behindProxy ? { HOST: '127.0.0.1', METRICS_PORT: String(replica.metricsPort) } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: Ctrl-C in the terminal reaches the supervisor alone, which
      // then stops each app once. A second signal would make an app skip its drain.
      detached: true,
    });
    replica.child = child;
    replica.pid = child.pid ?? null;
    replica.status = 'running';
    replica.startedAt = Date.now();
    replica.stderrTail = '';
    for (const stream of [child.stdout, child.stderr]) {
      if (this.logsToStdout) stream.on('data', (chunk) => process.stdout.write(chunk.toString().replace(/^(?=.)/gm, `[${replica.name}] `)));
      // One log file across restarts: a restarted process appends to it.
      stream.pipe(replica.log, { end: false });
    }
    child.stderr.on('data', (chunk) => (replica.stderrTail = (replica.stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS)));
    let exited = false;
    const onExit = (code, signal) => {
      if (exited) return;
      exited = true;
      this.exited(replica, code, signal);
    };
    // 'close', not 'exit': the output is read to its end first, refusal reasons included.
    child.on('close', onExit);
    child.on('error', (error) => {
      console.error(`up: ${replica.name} could not be started: ${error.message}`);
      onExit(1, null);
    });
    this.writeState();
    this.hooks.onStart(replica);
  }

  exited(replica, code, signal) {
    replica.child = null;
    replica.lastExit = describeExit(code, signal);
    this.hooks.onExit(replica);
    const verdict = exitVerdict({ code, stopRequested: this.stopRequested });
    if (verdict === 'stopped') {
      replica.status = 'stopped';
    } else if (verdict === 'refused') {
      replica.status = 'refused';
      const reason = replica.stderrTail.trim().replace(/^/gm, '    ');
      console.error(`up: ${replica.name} refused its configuration (exit ${code}, EX_CONFIG) and will not be restarted:\n${reason}`);
      this.hooks.onRefused(replica);
    } else {
      replica.streak = nextRestartStreak(replica.streak, Date.now() - replica.startedAt);
      replica.restarts += 1;
      const delayMs = restartDelayMs(replica.streak);
      replica.status = 'restarting';
      console.error(
        `up: ${replica.name} exited (${replica.lastExit}); restarting in ${delayMs / 1000} s (restart ${replica.restarts}); log: ${this.logPath(replica)}`,
      );
      replica.timer = setTimeout(() => this.spawn(replica), delayMs);
    }
    this.writeState();
    if (this.stopRequested && this.replicas.every((candidate) => !candidate.child)) this.allExited?.();
  }

  /**
   * SIGTERM to every app (each drains within its SHUTDOWN_GRACE_MS); resolves once all
   * have exited. One that overstays its own deadline by far is killed.
   */
  stop({ forceAfterMs }) {
    this.stopRequested = true;
    const done = new Promise((resolve) => (this.allExited = resolve));
    for (const replica of this.replicas) {
      clearTimeout(replica.timer);
      replica.timer = null;
      if (replica.child) {
        replica.status = 'stopping';
        replica.child.kill('SIGTERM');
      } else if (replica.status !== 'refused') replica.status = 'stopped';
    }
    this.writeState();
    if (this.replicas.every((replica) => !replica.child)) this.allExited();
    const force = setTimeout(() => {
      for (const replica of this.replicas) {
        if (!replica.child) continue;
        console.error(`up: ${replica.name} did not stop within ${forceAfterMs / 1000} s; killing it`);
        replica.child.kill('SIGKILL');
      }
    }, forceAfterMs);
    return done.then(async () => {
      clearTimeout(force);
      await Promise.all(this.replicas.map((replica) => new Promise((resolve) => replica.log.end(resolve))));
    });
  }

  /** Written whole and renamed into place, so a reader never sees half a file. */
  writeState() {
    const state = {
      supervisor: {
        pid: process.pid,
        status: this.status,
        url: this.url,
        proxy: this.proxied,
        replicas: Math.max(...this.replicas.map((replica) => replica.replica)),
      },
      updated_at: new Date().toISOString(),
      apps: this.replicas.map((replica) => ({
        name: replica.name,
        app: replica.app,
        replica: replica.replica,
        pid: replica.pid,
        port: replica.port,
        status: replica.status,
        restarts: replica.restarts,
        started_at: replica.startedAt ? new Date(replica.startedAt).toISOString() : null,
        last_exit: replica.lastExit,
        log: replica.logFile,
      })),
    };
    const temporary = `${this.stateFile}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(temporary, this.stateFile);
  }
}

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { OutboundPolicy } from '../../../src/lib/outbound-policy.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';
import { EgressProxy } from '../../../src/sandbox/egress-proxy.js';
import { networkIsolator } from '../../../src/sandbox/generated-server-sandbox.js';
import { ServerSandbox, type SandboxedServer } from '../../../src/sandbox/server-sandbox.js';

/**
 * Escape probes against the jail of sandboxed stdio servers (generated servers, registry imports,
 * and stdio servers an admin marks `sandboxed`): each probe is a Python program run exactly as the
 * gateway would run a sandboxed server's command, which tries to reach what it must not.
 */
describe('Sandboxed stdio servers: the jail holds against escape probes', function () {
  this.timeout(120_000);
  let dataDir: string;
  let work: string;
  let approvedWeb: http.Server;
  let otherWeb: http.Server;
  let approvedPort = 0;
  let otherPort = 0;
  let adminSocket: net.Server;
  let adminReached = 0;
  let egress: EgressProxy;
  let sandbox: ServerSandbox;
  const logger = createLogger(loadConfig({ TOOLGATE_LOG_LEVEL: 'silent' }));
  const SECRET = `tg-secret-${Math.random().toString(36).slice(2)}`;

  before(async () => {
    // Never skipped: a host without bubblewrap fails here, loudly (.ci/run installs it).
    expect(networkIsolator(), 'bubblewrap must work on this host (apt-get install bubblewrap)').to.be.a('string');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-srvsandbox-'));
    fs.writeFileSync(path.join(dataDir, 'master.key'), SECRET, { mode: 0o600 });
    fs.mkdirSync(path.join(dataDir, 'run'), { mode: 0o700 });
    adminSocket = net.createServer((s) => {
      adminReached += 1;
      s.end();
    });
    await new Promise<void>((r) => adminSocket.listen(path.join(dataDir, 'run', 'admin.sock'), r));
    // The server's own folder (its cwd): readable, and the probes live there.
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-srvwork-'));
    fs.chmodSync(work, 0o755);
    const web = (name: string) => http.createServer((req, res) => res.end(`${name} ${req.url}`));
    approvedWeb = web('approved');
    otherWeb = web('other');
    await new Promise<void>((r) => approvedWeb.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => otherWeb.listen(0, '127.0.0.1', r));
    approvedPort = (approvedWeb.address() as net.AddressInfo).port;
    otherPort = (otherWeb.address() as net.AddressInfo).port;
    // The gateway's outbound policy allows both loopback ports (as an admin might for local
    // services); only the server's approved list decides which one the sandbox reaches.
    egress = new EgressProxy({ policy: new OutboundPolicy([`127.0.0.1:${approvedPort}`, `127.0.0.1:${otherPort}`]), logger });
    sandbox = new ServerSandbox({
      egress,
      sandboxUid: 61000,
      generatedRoot: path.join(dataDir, 'generated'),
      logger,
      limits: { cpuSeconds: 2 },
    });
  });

  after(async () => {
    await sandbox?.close();
    approvedWeb?.close();
    otherWeb?.close();
    adminSocket?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  });

  /** Runs a Python probe as a sandboxed server with `approvedHosts`; resolves with its exit and output. */
  async function probe(
    name: string,
    code: string,
    options: { approvedHosts?: string[]; env?: Record<string, string>; timeoutMs?: number; node?: boolean } = {},
  ): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; ms: number }> {
    const file = path.join(work, `${name}.${options.node ? 'mjs' : 'py'}`);
    fs.writeFileSync(file, code);
    const server: SandboxedServer = {
      id: `probe-${name}`,
      command: options.node ? process.execPath : '/usr/bin/python3',
      args: options.node ? [file] : ['-I', file],
      env: options.env ?? {},
      cwd: work,
      approvedHosts: options.approvedHosts ?? [],
    };
    const jailed = await sandbox.launch(server);
    const started = Date.now();
    return new Promise((resolve) => {
      const child = spawn(jailed.command, jailed.args, { cwd: jailed.cwd, env: jailed.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
      });
    });
  }

  const json = (r: { stdout: string; stderr: string }): Record<string, unknown> => {
    try {
      return JSON.parse(r.stdout) as Record<string, unknown>;
    } catch {
      throw new Error(`not JSON: ${r.stdout} ${r.stderr}`);
    }
  };

  const CONNECT = `
import json, socket, sys
out = {}
for host, port in ${'${TARGETS}'}:
    s = socket.socket(socket.AF_INET6 if ':' in host else socket.AF_INET)
    s.settimeout(2)
    try:
        s.connect((host, port)); out['%s:%d' % (host, port)] = 'connected'
    except Exception as e:
        out['%s:%d' % (host, port)] = type(e).__name__
    finally:
        s.close()
print(json.dumps(out))
`;

  it('runs with a minimal fixed environment plus the server’s own variables', async () => {
    const r = await probe('env', 'import json, os\nprint(json.dumps({"env": dict(os.environ), "uid": os.getuid()}))\n', {
      env: { API_TOKEN: 'configured', LD_PRELOAD: '/tmp/evil.so' },
    });
    const out = json(r) as { env: Record<string, string>; uid: number };
    expect(Object.keys(out.env).sort()).to.deep.equal(['API_TOKEN', 'HOME', 'LANG', 'PATH', 'PWD']);
    expect(out.env.API_TOKEN).to.equal('configured');
    expect(out.env.HOME).to.equal('/tmp');
    expect(out.uid).to.equal(process.getuid?.() === 0 ? 61101 : process.getuid?.());
  });

  it('without an approved list reaches nothing: not the gateway, Redis, PostgreSQL or the outside', async () => {
    const targets = `[('127.0.0.1', ${approvedPort}), ('127.0.0.1', 6379), ('127.0.0.1', 5432), ('1.1.1.1', 443)]`;
    const out = json(await probe('net-none', CONNECT.replace('${TARGETS}', targets)));
    expect(Object.values(out)).to.not.include('connected');
    expect(out['127.0.0.1:6379']).to.equal('ConnectionRefusedError');
    expect(out['127.0.0.1:5432']).to.equal('ConnectionRefusedError');
  });

  it('with an approved list reaches exactly that host:port, through the egress proxy only', async () => {
    const code = `
import json, os, socket, urllib.request, urllib.error
out = {}
for port in (${approvedPort}, ${otherPort}, 6379):
    try:
        out[str(port)] = urllib.request.urlopen('http://127.0.0.1:%d/hello' % port, timeout=5).read().decode()
    except urllib.error.HTTPError as e:
        out[str(port)] = 'HTTP %d' % e.code
    except Exception as e:
        out[str(port)] = type(e).__name__
# Around the proxy, straight to the loopback services: still nothing there.
for port in (${approvedPort}, 6379, 5432):
    s = socket.socket(); s.settimeout(2)
    try:
        s.connect(('127.0.0.1', port)); out['direct %d' % port] = 'connected'
    except Exception as e:
        out['direct %d' % port] = type(e).__name__
    s.close()
out['proxy'] = os.environ.get('HTTP_PROXY')
print(json.dumps(out))
`;
    const out = json(await probe('net-approved', code, { approvedHosts: [`127.0.0.1:${approvedPort}`] }));
    expect(out[String(approvedPort)]).to.equal('approved /hello');
    expect(out[String(otherPort)]).to.equal('HTTP 403');
    expect(out['6379']).to.equal('HTTP 403');
    expect(out[`direct ${approvedPort}`]).to.equal('ConnectionRefusedError');
    expect(out['direct 6379']).to.equal('ConnectionRefusedError');
    expect(out['direct 5432']).to.equal('ConnectionRefusedError');
    expect(out.proxy).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('sends a Node server’s fetch through the egress proxy (Node 20 ignores HTTP_PROXY on its own)', async () => {
    const code = `
const out = {};
for (const port of [${approvedPort}, ${otherPort}]) {
  try { const r = await fetch('http://127.0.0.1:' + port + '/node'); out[port] = r.status + ' ' + (await r.text()); }
  catch (e) { out[port] = 'failed: ' + (e.cause?.message ?? e.message); }
}
console.log(JSON.stringify(out));
`;
    const out = json(await probe('node-fetch', code, { node: true, approvedHosts: [`127.0.0.1:${approvedPort}`] }));
    expect(out[String(approvedPort)]).to.equal('200 approved /node');
    expect(out[String(otherPort)]).to.match(/^failed/);
  });

  it('cannot reach the admin socket or read the data directory', async () => {
    const code = `
import json, socket
out = {}
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(${JSON.stringify(path.join(dataDir, 'run', 'admin.sock'))}); out['admin'] = 'connected'
except Exception as e:
    out['admin'] = type(e).__name__
for p in (${JSON.stringify(path.join(dataDir, 'master.key'))}, '/etc/passwd', '/root/.bashrc'):
    try:
        out[p] = open(p).read()
    except Exception as e:
        out[p] = type(e).__name__
try:
    open(${JSON.stringify(path.join(work, 'written'))}, 'w').write('x'); out['own folder write'] = 'written'
except Exception as e:
    out['own folder write'] = type(e).__name__
print(json.dumps(out))
`;
    const r = await probe('files', code);
    const out = json(r);
    expect(out.admin).to.equal('FileNotFoundError');
    expect(out[path.join(dataDir, 'master.key')]).to.equal('FileNotFoundError');
    expect(out['/etc/passwd']).to.equal('FileNotFoundError');
    expect(out['/root/.bashrc']).to.equal('FileNotFoundError');
    // An admin-registered server's folder is read-only to it.
    expect(out['own folder write']).to.equal('OSError');
    expect(r.stdout).to.not.include(SECRET);
    expect(adminReached).to.equal(0);
  });

  it('cannot allocate 4 GiB', async () => {
    const r = await probe('memory', 'hog = bytearray(4 * 1024 ** 3)\nprint("held")\n');
    expect(r.stdout).to.not.include('held');
    expect(r.stderr).to.match(/MemoryError/);
  });

  it('contains a fork bomb: processes are capped', async () => {
    const code = `
import json, os, sys, time
pids, error = [], None
for i in range(500):
    try:
        pid = os.fork()
    except OSError as e:
        error = type(e).__name__
        break
    if pid == 0:
        time.sleep(2)
        os._exit(0)
    pids.append(pid)
print(json.dumps({"spawned": len(pids), "error": error}))
sys.stdout.flush()
os._exit(0)
`;
    const out = json(await probe('forks', code));
    expect(out.error).to.equal('BlockingIOError');
    expect(out.spawned).to.be.lessThan(64);
  });

  it('stops a CPU burn at its CPU-time limit', async () => {
    const r = await probe('burn', 'while True:\n    pass\n', { timeoutMs: 20_000 });
    // SIGXCPU at the soft limit (2 s here), SIGKILL at the hard one: never the test's own kill after 20 s.
    expect(r.signal ?? String(r.code)).to.match(/SIGXCPU|SIGKILL|152|137/);
    expect(r.ms).to.be.lessThan(15_000);
  });
});

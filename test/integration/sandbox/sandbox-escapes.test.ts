import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { mcpFetch, modernRequest, responseOf } from '../../helpers/mcp-http.js';
import { seedSecret } from '../../helpers/secrets.js';
import { createSkill, scriptSkill } from '../../helpers/skills.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const CANARY_ENV = 'TOOLGATE_SANDBOX_CANARY';
const canary = seedSecret(`canary-${Math.random().toString(36).slice(2)}-secret-value`);

const JS_TOOLS: Record<string, [string, string, string]> = {
  js_globals: [
    'javascript',
    'globals.js',
    `export function main() {
       const names = Object.getOwnPropertyNames(globalThis);
       return { process: typeof process, require: typeof require, fetch: typeof fetch, xhr: typeof XMLHttpRequest,
                websocket: typeof WebSocket, std: typeof std, os: typeof os, setTimeout: typeof setTimeout, names };
     }`,
  ],
  js_import_fs: ['javascript', 'fs.js', `import * as fs from 'fs'; export function main() { return typeof fs; }`],
  js_import_key: ['javascript', 'key.js', `import key from '__KEY__'; export function main() { return key; }`],
  js_dynamic_import: ['javascript', 'dyn.js', `export async function main(a) { const m = await import(a.path); return String(m); }`],
  js_loop: ['javascript', 'loop.js', 'export function main() { for (;;) {} }'],
  js_memory: ['javascript', 'mem.js', 'export function main() { const keep = []; for (;;) keep.push(new Uint8Array(8 * 1024 * 1024)); }'],
  js_big_buffer: ['javascript', 'big.js', 'export function main() { return new ArrayBuffer(1024 * 1024 * 1024).byteLength; }'],
  js_never: ['javascript', 'never.js', 'export function main() { return new Promise(() => {}); }'],
  js_ok: ['javascript', 'ok.js', 'export default async function (a) { console.log("hi"); return { echoed: a.v }; }'],
};

const PY_TOOLS: Record<string, [string, string, string]> = {
  py_env: ['python', 'env.py', 'import json, os\nprint(json.dumps(dict(os.environ)))\n'],
  py_proc: [
    'python',
    'proc.py',
    `import json, os
found = []
for pid in os.listdir('/proc'):
    if pid.isdigit():
        try:
            found.append(open('/proc/%s/environ' % pid, 'rb').read().decode('utf8', 'replace'))
        except Exception as e:
            found.append('ERR ' + type(e).__name__)
print(json.dumps({"pids": [p for p in os.listdir('/proc') if p.isdigit()], "environs": found}))
`,
  ],
  py_read_key: ['python', 'read.py', 'import json, sys\nargs = json.load(sys.stdin)\nprint(open(args["path"]).read())\n'],
  py_write: [
    'python',
    'write.py',
    `import json
out = {}
for p in ['/skill/evil.txt', '/usr/evil.txt', '/evil.txt', '/tmp/ok.txt']:
    try:
        open(p, 'w').write('x'); out[p] = 'written'
    except Exception as e:
        out[p] = type(e).__name__
print(json.dumps(out))
`,
  ],
  py_network: [
    'python',
    'net.py',
    `import json, socket, sys
args = json.load(sys.stdin)
out = {}
for host, port in [('127.0.0.1', args['port']), ('1.1.1.1', 80)]:
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect((host, port)); out[host] = 'connected'
    except Exception as e:
        out[host] = type(e).__name__
try:
    socket.getaddrinfo('example.com', 80); out['dns'] = 'resolved'
except Exception as e:
    out['dns'] = type(e).__name__
print(json.dumps(out))
`,
  ],
  py_memory: ['python', 'mem.py', 'hog = bytearray(8 * 1024 ** 3)\n'],
  py_fork_count: [
    'python',
    'forks.py',
    `import json, os, sys, time
pids, error = [], None
for i in range(300):
    try:
        pid = os.fork()
    except OSError as e:
        error = type(e).__name__
        break
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    pids.append(pid)
print(json.dumps({"spawned": len(pids), "error": error}))
sys.stdout.flush()
os._exit(0)
`,
  ],
  sh_fork_bomb: ['shell', 'bomb.sh', 'b() { b | b & }\nb\nsleep 1\n'],
};

/** Runaway scripts get a short time limit. */
const LOOP_TOOLS: Record<string, [string, string, string]> = {
  py_loop: ['python', 'loop.py', 'while True:\n    pass\n'],
  sh_loop: ['shell', 'loop.sh', 'while :; do :; done\n'],
};

/** Processes of the sandbox uids (the slots run as uid 61000 and 61001 when the tests run as root). */
function sandboxProcesses(): number {
  if (process.getuid?.() !== 0) return 0;
  try {
    return execFileSync('ps', ['-u', '61000,61001', '-o', 'pid='], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

describe('Script tool sandboxes: escapes fail, the gateway stays healthy', function () {
  this.timeout(180000);
  let t: TestServer;
  let fx: FixtureBundle;
  let keyPath: string;
  let healthWorst = 0;
  let healthFailures = 0;
  let healthTimer: NodeJS.Timeout | undefined;

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const { headers, body } = modernRequest('tools/call', { name, arguments: args });
    const reply = responseOf(await mcpFetch(fx.endpoint, { headers, body }));
    if (reply.error) throw new Error(`${name}: ${JSON.stringify(reply.error)}`);
    return reply.result as { content: { text: string }[]; structuredContent?: any; isError?: boolean };
  };

  before(async () => {
    process.env[CANARY_ENV] = canary;
    t = await startTestServer();
    keyPath = path.join(t.config.dataDir, 'master.key');
    expect(fs.existsSync(keyPath)).to.equal(true);
    fx = await setupFixtureBundle(t.owner, t.url, { tools: ['echo'] });
    const js = {
      ...JS_TOOLS,
      js_import_key: ['javascript', 'key.js', JS_TOOLS.js_import_key![2].replace('__KEY__', keyPath)] as [string, string, string],
    };
    for (const [name, tools, timeoutMs] of [
      ['js-escapes', js, 2000],
      ['process-escapes', PY_TOOLS, 15000],
      ['process-loops', LOOP_TOOLS, 2000],
    ] as const) {
      const skill = await createSkill(t.owner, scriptSkill(name, tools, timeoutMs));
      const attached = await t.owner.post(`/api/v1/servers/${fx.serverId}/skills/${skill.id}/attach`);
      expect(attached.status, attached.text).to.equal(200);
    }
    const listed = await t.owner.get(`/api/v1/servers/${fx.serverId}/tools?page_size=100`);
    const ids = (listed.body.items as { id: string; name: string }[]).filter((x) => x.name !== 'echo').map((x) => ({ tool_id: x.id }));
    expect((await t.owner.post(`/api/v1/bundles/${fx.bundleId}/tools`, { tools: ids })).status).to.equal(200);
    // Probe /health all along: every answer must come, quickly, while scripts misbehave.
    const probe = async () => {
      const started = performance.now();
      try {
        const res = await fetch(`${t.url}/health`, { signal: AbortSignal.timeout(5000) });
        if (res.status !== 200) healthFailures += 1;
      } catch {
        healthFailures += 1;
      }
      healthWorst = Math.max(healthWorst, performance.now() - started);
      healthTimer = setTimeout(() => void probe(), 100);
    };
    void probe();
  });

  after(async () => {
    clearTimeout(healthTimer);
    delete process.env[CANARY_ENV];
    await t?.stop();
  });

  describe('JavaScript (QuickJS in WebAssembly)', () => {
    it('has no process, require, fetch, XMLHttpRequest, WebSocket, std, os or timers', async () => {
      const r = await call('js_globals');
      expect(r.isError).to.not.equal(true);
      expect(r.structuredContent).to.include({
        process: 'undefined',
        require: 'undefined',
        fetch: 'undefined',
        xhr: 'undefined',
        websocket: 'undefined',
        std: 'undefined',
        os: 'undefined',
        setTimeout: 'undefined',
      });
      expect(r.structuredContent.names).to.not.include.members(['process', 'require', 'Deno', 'Bun']);
    });

    it('cannot import host modules, the master key file or anything outside the skill', async () => {
      for (const [tool, args] of [
        ['js_import_fs', {}],
        ['js_import_key', {}],
        ['js_dynamic_import', { path: keyPath }],
        ['js_dynamic_import', { path: '../../../etc/passwd' }],
      ] as const) {
        const r = await call(tool, args);
        expect(r.isError, `${tool} ${JSON.stringify(args)}`).to.equal(true);
        expect(r.content[0]!.text).to.match(/Cannot find module|could not load module/i);
      }
    });

    it('stops an infinite loop at its time limit', async () => {
      const started = Date.now();
      const r = await call('js_loop');
      expect(r.isError).to.equal(true);
      expect(r.content[0]!.text).to.match(/did not finish within 2000 ms/);
      expect(Date.now() - started).to.be.lessThan(8000);
    });

    it('stops a memory bomb: a huge allocation and a growing heap both fail at the memory limit', async () => {
      const big = await call('js_big_buffer');
      expect(big.isError).to.equal(true);
      expect(big.content[0]!.text).to.match(/out of memory \(limit 67108864 bytes\)/);
      const rssBefore = process.memoryUsage().rss;
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
      try {
        const r = await call('js_memory');
        expect(r.isError).to.equal(true);
        expect(r.content[0]!.text).to.match(/out of memory \(limit 67108864 bytes\)/);
      } finally {
        clearInterval(sampler);
      }
      // The worker's WebAssembly memory has a hard maximum, the limit itself (64 MiB, the script's
      // heap a little below it): the process grows by less than the documented limit.
      expect(rssPeak - rssBefore).to.be.lessThan(64 * 1024 * 1024);
    });

    it('ends a promise that never settles, and still runs well-behaved scripts afterwards', async () => {
      const never = await call('js_never');
      expect(never.isError).to.equal(true);
      const ok = await call('js_ok', { v: 'x' });
      expect(ok.structuredContent).to.deep.equal({ echoed: 'x' });
    });
  });

  describe('Python and shell (bubblewrap process sandbox)', () => {
    it('sees an empty environment: none of the gateway variables', async () => {
      const r = await call('py_env');
      expect(r.isError, r.content[0]?.text).to.not.equal(true);
      expect(Object.keys(r.structuredContent).sort()).to.deep.equal([
        'HOME',
        'LANG',
        'PATH',
        'PWD',
        'PYTHONDONTWRITEBYTECODE',
        'TOOL_INPUT',
      ]);
      expect(r.content[0]!.text).to.not.include(canary);
    });

    it('sees only its own processes, whose environments hold no gateway variable', async () => {
      const r = await call('py_proc');
      expect(r.isError, r.content[0]?.text).to.not.equal(true);
      expect(r.structuredContent.pids.length).to.be.lessThan(5);
      expect(r.content[0]!.text).to.not.include(canary);
      expect(r.content[0]!.text).to.not.include(CANARY_ENV);
    });

    it('cannot read the master key', async () => {
      const key = fs.readFileSync(keyPath, 'utf8').trim();
      const r = await call('py_read_key', { path: keyPath });
      expect(r.isError).to.equal(true);
      expect(r.content[0]!.text).to.match(/FileNotFoundError|No such file/);
      expect(r.content[0]!.text).to.not.include(key);
    });

    it('writes only to its scratch folder', async () => {
      const r = await call('py_write');
      expect(r.structuredContent).to.deep.equal({
        '/skill/evil.txt': 'OSError',
        '/usr/evil.txt': 'OSError',
        '/evil.txt': 'OSError',
        '/tmp/ok.txt': 'written',
      });
    });

    it('has no network: neither the gateway on loopback nor the outside, nor DNS', async () => {
      const r = await call('py_network', { port: t.server.port });
      expect(r.isError, r.content[0]?.text).to.not.equal(true);
      expect(r.structuredContent['127.0.0.1']).to.not.equal('connected');
      expect(r.structuredContent['1.1.1.1']).to.not.equal('connected');
      expect(r.structuredContent.dns).to.not.equal('resolved');
    });

    it('kills an infinite loop at its time limit (Python and shell)', async () => {
      for (const tool of ['py_loop', 'sh_loop']) {
        const r = await call(tool);
        expect(r.isError, tool).to.equal(true);
        expect(r.content[0]!.text).to.match(/did not finish within 2000 ms|CPU time/);
      }
    });

    it('stops a memory bomb at its address-space limit', async () => {
      const r = await call('py_memory');
      expect(r.isError).to.equal(true);
      expect(r.content[0]!.text).to.match(/MemoryError/);
    });

    it('caps the processes one run may start', async () => {
      const r = await call('py_fork_count');
      expect(r.isError, r.content[0]?.text).to.not.equal(true);
      expect(r.structuredContent.error).to.equal('BlockingIOError');
      expect(r.structuredContent.spawned).to.be.lessThan(64);
    });

    it('contains a fork bomb: the run ends, and no sandbox process outlives it', async () => {
      const r = await call('sh_fork_bomb');
      expect(r.content.length).to.equal(1);
      const deadline = Date.now() + 5000;
      while (sandboxProcesses() > 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
      expect(sandboxProcesses()).to.equal(0);
    });
  });

  describe('afterwards', () => {
    it('the gateway answered /health throughout, and still serves upstream tools', async () => {
      expect(healthFailures).to.equal(0);
      expect(healthWorst).to.be.lessThan(2000);
      const echo = await call('echo', { text: 'still here' });
      expect(JSON.stringify(echo)).to.include('still here');
    });
  });
});

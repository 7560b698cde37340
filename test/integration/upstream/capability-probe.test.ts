import { expect } from 'chai';
import { createLogger } from '../../../src/logger.js';
import { CapabilityProbe } from '../../../src/upstream/capability-probe.js';
import type { UpstreamServerSpec } from '../../../src/upstream/upstream-connection.js';
import { EVERYTHING_BIN, fixtureStdio } from '../../helpers/upstreams.js';

const options = {
  logger: createLogger({ logLevel: 'silent' }),
  clientInfo: { name: 'toolgate-test', version: '0' },
  connectTimeoutMs: 20000,
  retryBaseMs: 50,
  retryMaxMs: 200,
  maxFastRetries: 0,
};

function stdioSpec(id: string, command: string, args: string[], cwd?: string): UpstreamServerSpec {
  return {
    id,
    name: id,
    callTimeoutMs: 20000,
    healthCheckIntervalMs: 600000,
    connection: { transport: 'stdio', command, args, env: {}, cwd },
  };
}

describe('CapabilityProbe', function () {
  this.timeout(90_000);

  it('names the feature each gated tool of the reference server needs, and nothing for the others', async () => {
    const probe = new CapabilityProbe(options);
    const spec = stdioSpec('everything', process.execPath, [EVERYTHING_BIN, 'stdio']);
    const needs = await probe.needs(
      spec,
      ['echo', 'get-sum', 'trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list'],
      20000,
    );
    expect(Object.fromEntries(needs)).to.deep.equal({
      'trigger-sampling-request': ['sampling'],
      'trigger-elicitation-request': ['elicitation'],
      'get-roots-list': ['roots'],
    });
    await probe.close();
  });

  it('a tool no probe lists (added at run time on the shared connection) needs nothing; unchanged names are not probed again', async () => {
    const probe = new CapabilityProbe(options);
    const f = fixtureStdio();
    const spec = stdioSpec('fixture', f.command, f.args, f.cwd);
    const needs = await probe.needs(spec, ['echo', 'late_tool'], 20000);
    expect(needs.size).to.equal(0);
    // Same names (in any order): answered from what was found, without probing again.
    expect(await probe.needs(spec, ['late_tool', 'echo'], 20000)).to.equal(needs);
    // Changed names: probed again.
    expect(await probe.needs(spec, ['echo'], 20000)).not.to.equal(needs);
    await probe.close();
  });

  it('a closed probe starts nothing', async () => {
    const probe = new CapabilityProbe(options);
    await probe.close();
    const f = fixtureStdio();
    let failed = false;
    await probe.needs(stdioSpec('closed', f.command, f.args, f.cwd), ['echo'], 5000).catch(() => (failed = true));
    expect(failed).to.equal(true);
  });
});

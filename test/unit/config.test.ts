import { expect } from 'chai';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('config', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).to.equal(8080);
    expect(config.host).to.equal('127.0.0.1');
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.dataDir).to.equal(path.resolve('./data'));
    expect(config.keyPrefix).to.equal('tg');
    expect(config.bodyLimitBytes).to.equal(1048576);
    expect(config.allowedOrigins).to.deep.equal([]);
    // A database that does not answer costs a REST request at most this long (then 503).
    expect(config.dbAcquireTimeoutMs).to.equal(5000);
    expect(config.dbStatementTimeoutMs).to.equal(5000);
    expect(config.logFormat).to.equal('auto');
    expect(Object.isFrozen(config)).to.equal(true);
  });

  it('reads and coerces every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u@db:5432/toolgate',
      TOOLGATE_DATA_DIR: '/var/lib/toolgate',
      TOOLGATE_ALLOWED_ORIGINS: 'https://a.example, https://b.example',
      TOOLGATE_KEY_PREFIX: 'acme',
    });
    expect(config.port).to.equal(9000);
    expect(config.host).to.equal('0.0.0.0');
    expect(config.databaseUrl).to.equal('postgres://u@db:5432/toolgate');
    expect(config.dataDir).to.equal('/var/lib/toolgate');
    expect(config.allowedOrigins).to.deep.equal(['https://a.example', 'https://b.example']);
    expect(config.keyPrefix).to.equal('acme');
  });

  it('lists every problem at once and never echoes a value', () => {
    const secret = 'not-a-valid-key-but-still-secret';
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', TOOLGATE_SECRET_KEY: secret, TOOLGATE_LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.map((p) => p.split(':')[0])).to.have.members(['PORT', 'DATABASE_URL', 'TOOLGATE_SECRET_KEY', 'TOOLGATE_LOG_LEVEL']);
    expect((error as Error).message).not.to.include(secret);
  });

  it('audit export: off by default; the webhook needs its secret and https (plain http only to loopback)', () => {
    const none = loadConfig({});
    expect(none.auditOtlpLogs).to.equal(false);
    expect(none.auditFile).to.equal(undefined);
    expect(none.auditWebhookUrl).to.equal(undefined);
    const secret = 'audit-webhook-secret-0123456789abcdef';
    const ok = loadConfig({ TOOLGATE_AUDIT_WEBHOOK_URL: 'https://siem.example/hook', TOOLGATE_AUDIT_WEBHOOK_SECRET: secret });
    expect(ok.auditWebhookUrl).to.equal('https://siem.example/hook');
    expect(
      loadConfig({ TOOLGATE_AUDIT_WEBHOOK_URL: 'http://127.0.0.1:9/hook', TOOLGATE_AUDIT_WEBHOOK_SECRET: secret }).auditWebhookUrl,
    ).to.equal('http://127.0.0.1:9/hook');
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (err) {
        expect((err as Error).message).not.to.include(secret);
        return (err as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ TOOLGATE_AUDIT_WEBHOOK_URL: 'https://siem.example/hook' })).to.deep.equal([
      'TOOLGATE_AUDIT_WEBHOOK_SECRET: is required with TOOLGATE_AUDIT_WEBHOOK_URL',
    ]);
    expect(problems({ TOOLGATE_AUDIT_WEBHOOK_URL: 'http://siem.example/hook', TOOLGATE_AUDIT_WEBHOOK_SECRET: secret })[0]).to.match(
      /must be https/,
    );
    expect(problems({ TOOLGATE_AUDIT_WEBHOOK_URL: 'https://siem.example/hook', TOOLGATE_AUDIT_WEBHOOK_SECRET: 'short' })[0]).to.match(
      /^TOOLGATE_AUDIT_WEBHOOK_SECRET/,
    );
  });
});

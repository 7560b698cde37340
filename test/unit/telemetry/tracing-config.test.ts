import { expect } from 'chai';
import { TelemetryConfigError, tracingConfigFromEnv, withTraceMeta } from '../../../src/telemetry/tracing.js';

describe('tracing configuration from OTEL_* variables', () => {
  it('is off unless configured', () => {
    expect(tracingConfigFromEnv({})).to.equal(undefined);
    expect(tracingConfigFromEnv({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).to.equal(undefined);
    expect(tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).to.equal(undefined);
    expect(tracingConfigFromEnv({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).to.equal(undefined);
  });

  it('turns on with OTEL_TRACES_EXPORTER=otlp or an OTLP endpoint, with the protocol asked for', () => {
    expect(tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'otlp' })).to.deep.equal({ exporter: 'otlp', protocol: 'http/protobuf' });
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).to.deep.equal({
      exporter: 'otlp',
      protocol: 'http/json',
    });
    expect(
      tracingConfigFromEnv({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).to.deep.equal({ exporter: 'otlp', protocol: 'http/protobuf' });
    expect(tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'console' })?.exporter).to.equal('console');
  });

  it('refuses what it cannot do rather than run untraced by surprise', () => {
    expect(() => tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'zipkin' })).to.throw(TelemetryConfigError, /zipkin/);
    expect(() => tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).to.throw(
      TelemetryConfigError,
      /grpc/,
    );
  });

  it('leaves outgoing messages untouched outside a span', () => {
    const msg = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {} } };
    expect(withTraceMeta(msg)).to.equal(msg);
  });
});

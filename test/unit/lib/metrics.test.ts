import { expect } from 'chai';
import { Metrics } from '../../../src/lib/metrics.js';

/** Lines of `text` that start with `prefix`. */
const lines = (text: string, prefix: string): string[] => text.split('\n').filter((l) => l.startsWith(prefix));

describe('Metrics (Prometheus text of the hot-path counters and histograms)', () => {
  it('writes cumulative histogram buckets, +Inf, sum and count, and counters per label set', async () => {
    const m = new Metrics({ defaultMetrics: false });
    for (const seconds of [0.0005, 0.001, 0.003, 0.2, 100]) m.toolCall('s-1', 'ok', seconds);
    m.toolCall('s-1', 'timeout', 0.05);
    const text = await m.render();
    expect(lines(text, 'toolgate_tool_calls_total{')).to.deep.equal([
      'toolgate_tool_calls_total{server_id="s-1",status="ok"} 5',
      'toolgate_tool_calls_total{server_id="s-1",status="timeout"} 1',
    ]);
    expect(lines(text, 'toolgate_tool_call_errors_total{')).to.deep.equal(['toolgate_tool_call_errors_total{server_id="s-1"} 1']);
    const buckets = lines(text, 'toolgate_tool_call_duration_seconds_bucket{');
    expect(buckets[0]).to.equal('toolgate_tool_call_duration_seconds_bucket{server_id="s-1",le="0.001"} 2');
    expect(buckets).to.include('toolgate_tool_call_duration_seconds_bucket{server_id="s-1",le="0.005"} 3');
    expect(buckets).to.include('toolgate_tool_call_duration_seconds_bucket{server_id="s-1",le="0.05"} 4');
    expect(buckets).to.include('toolgate_tool_call_duration_seconds_bucket{server_id="s-1",le="60"} 5');
    expect(buckets.at(-1)).to.equal('toolgate_tool_call_duration_seconds_bucket{server_id="s-1",le="+Inf"} 6');
    expect(lines(text, 'toolgate_tool_call_duration_seconds_count{')).to.deep.equal([
      'toolgate_tool_call_duration_seconds_count{server_id="s-1"} 6',
    ]);
    const sum = Number(lines(text, 'toolgate_tool_call_duration_seconds_sum{')[0]!.split(' ')[1]);
    expect(sum).to.be.closeTo(100.2545, 1e-9);
    expect(text).to.include('# TYPE toolgate_tool_call_duration_seconds histogram');
    expect(text).to.include('# TYPE toolgate_tool_calls_total counter');
  });

  it('shares one duration series between the statuses of a route, and counts statuses by class', async () => {
    const m = new Metrics({ defaultMetrics: false });
    m.httpRequest('getBundle', 'GET', 200, 0.01);
    m.httpRequest('getBundle', 'GET', 204, 0.01);
    m.httpRequest('getBundle', 'GET', 404, 0.01);
    const text = await m.render();
    expect(lines(text, 'toolgate_http_requests_total{')).to.deep.equal([
      'toolgate_http_requests_total{route="getBundle",method="GET",status="2xx"} 2',
      'toolgate_http_requests_total{route="getBundle",method="GET",status="4xx"} 1',
    ]);
    expect(lines(text, 'toolgate_http_request_duration_seconds_count{')).to.deep.equal([
      'toolgate_http_request_duration_seconds_count{route="getBundle"} 3',
    ]);
  });

  it('counts unknown MCP methods as other, and forgets a deleted server', async () => {
    const m = new Metrics({ defaultMetrics: false });
    m.mcpRequest('bundle', 'made/up', false, 0.001);
    m.mcpRequest('bundle', 'tools/list', true, 0.001);
    m.toolCall('gone', 'ok', 0.001);
    m.toolCall('kept', 'ok', 0.001);
    m.forgetServer('gone');
    const text = await m.render();
    expect(text).to.include('toolgate_mcp_requests_total{endpoint="bundle",method="other",outcome="error"} 1');
    expect(text).to.include('toolgate_mcp_requests_total{endpoint="bundle",method="tools/list",outcome="ok"} 1');
    expect(text).to.not.include('made/up');
    expect(text).to.not.include('"gone"');
    expect(text).to.include('toolgate_tool_calls_total{server_id="kept",status="ok"} 1');
  });
});

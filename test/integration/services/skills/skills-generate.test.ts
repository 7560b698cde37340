import { expect } from 'chai';
import { FakeAnthropic } from '../../../helpers/fake-anthropic.js';
import { FakeOpenAi, type RecordedRequest } from '../../../helpers/fake-openai.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { containsSecret, seedSecret } from '../../../helpers/secrets.js';
import { postSse, type ReceivedEvent, type SseConnection } from '../../../helpers/sse-client.js';
import { capturedLogs, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { waitFor } from '../../../helpers/upstreams.js';

const PATH = '/api/v1/skills/generate';

const skillMd = (name: string, description = 'Builds PDF reports from tabular data') =>
  `---\nname: ${name}\ndescription: ${description}\nlicense: MIT\n---\n\n# ${name}\n\n1. Read the data.\n2. Lay out the report.\n`;

/** A SKILL.md cut into the pieces the fake model streams. */
function pieces(text: string, size = 20): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A gate the fake model waits at; `open()` lets it go on. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('Skill generation (POST /api/v1/skills/generate, SSE)', function () {
  this.timeout(60000);
  let t: TestServer;
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  let member: TestUser;
  let providerId: string;
  const apiKey = seedSecret(`sk-skillgen-${Date.now()}-canary0123456789`);

  const generate = (body: Record<string, unknown>, token = t.ownerKey): Promise<SseConnection> =>
    postSse(`${t.url}${PATH}`, token, body, 'generateSkill');
  const chatRequests = (): RecordedRequest[] => openai.requestsTo('/chat/completions');
  const skillNamed = (name: string) => t.server.services.db.knex('skills').where({ name }).first();
  const activity = (action: string) => t.server.services.db.knex('activity_log').where({ action }).select('*');

  before(async () => {
    openai = await new FakeOpenAi().start();
    anthropic = await new FakeAnthropic().start();
    t = await startTestServer({ env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*' } });
    member = await createUser(t, 'member');
    const res = await t.owner.post('/api/v1/settings/providers', {
      provider_type: 'llm',
      provider: 'openai',
      model: 'gpt-test',
      api_key: apiKey,
      endpoint: openai.url,
      config: { max_retries: 0 },
    });
    expect(res.status).to.equal(201);
    expect(res.body.is_active).to.equal(true);
    providerId = res.body.id;
  });
  after(async () => {
    await t?.stop();
    await openai?.stop();
    await anthropic?.stop();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });

  it('streams progress, then each token as the model writes it, then the completion; save:false stores nothing', async () => {
    const text = skillMd('pdf-report');
    const held = gate();
    openai.reply('chat', { chunks: pieces(text), gate: { afterChunks: 1, open: held.opened } });
    const skillsBefore = (await t.server.services.db.knex('skills').count({ n: '*' }))[0]!.n;

    const conn = await generate({ intent: 'Make PDF reports from CSV files', save: false });
    expect(conn.status).to.equal(200);
    expect(conn.headers['content-type']).to.match(/^text\/event-stream/);
    expect(conn.headers['cache-control']).to.include('no-transform');
    expect(conn.headers['x-accel-buffering']).to.equal('no');
    expect(conn.headers['x-request-id']).to.be.a('string');

    const head: ReceivedEvent[] = [];
    for (let e = await conn.next(); e; e = await conn.next()) {
      head.push(e);
      if (e.event === 'token') break;
    }
    // The first token is here while the model has sent one chunk and waits at the gate: nothing is buffered.
    expect(head.map((e) => e.event)).to.deep.equal(['progress', 'progress', 'token']);
    expect(head.at(-1)!.data.text).to.equal(pieces(text)[0]);
    expect(chatRequests()).to.have.length(1);
    expect(chatRequests()[0]!.chunksSent).to.equal(1);
    expect(chatRequests()[0]!.body.stream).to.equal(true);

    held.open();
    const rest = await conn.rest();
    const events = [...head, ...rest];
    const kinds = events.map((e) => e.event);
    expect(kinds.filter((k) => k === 'token')).to.have.length(pieces(text).length);
    expect(kinds.at(-1)).to.equal('completion');
    expect(kinds.indexOf('completion')).to.equal(kinds.length - 1);
    const tokens = events.filter((e) => e.event === 'token').map((e) => e.data.text as string);
    expect(tokens.join('')).to.equal(text);
    const phases = events.filter((e) => e.event === 'progress').map((e) => e.data.phase);
    expect(phases).to.deep.equal(['preparing', 'drafting', 'validating']);
    const percents = events.filter((e) => e.event === 'progress').map((e) => e.data.percent as number);
    expect([...percents].sort((a, b) => a - b)).to.deep.equal(percents);
    expect(events.at(-1)!.data).to.deep.equal({ skill_id: null, name: 'pdf-report', skill_md: text, files: [] });
    expect((await t.server.services.db.knex('skills').count({ n: '*' }))[0]!.n).to.equal(skillsBefore);
    expect(await activity('skill.generate')).to.have.length(0);
  });

  it('save:true (the default) stores the skill, with an activity entry, before the completion event', async () => {
    const text = skillMd('csv-cleaner', 'Cleans CSV files, trims cells and drops empty rows');
    openai.reply('chat', { chunks: pieces(text) });
    const conn = await generate({ intent: 'Clean CSV files' });
    expect(conn.status).to.equal(200);
    let completion: ReceivedEvent | undefined;
    const kinds: string[] = [];
    for (let e = await conn.next(); e; e = await conn.next()) {
      kinds.push(e.event === 'progress' ? `progress:${e.data.phase}` : e.event === 'error' ? JSON.stringify(e.data) : e.event);
      if (e.event === 'completion') {
        completion = e;
        // Read while the stream is still open: the skill is already committed.
        const stored = await t.owner.get(`/api/v1/skills/${e.data.skill_id}`);
        expect(stored.status).to.equal(200);
        expect(stored.body).to.deep.include({
          name: 'csv-cleaner',
          description: 'Cleans CSV files, trims cells and drops empty rows',
          content: '\n# csv-cleaner\n\n1. Read the data.\n2. Lay out the report.\n',
          frontmatter: { license: 'MIT' },
          source: null,
        });
      }
    }
    expect(completion, `completion event in ${kinds.join()}`).to.not.equal(undefined);
    expect(completion!.data.skill_id).to.be.a('string');
    expect(completion!.data.skill_md).to.equal(text);
    expect(kinds.slice(-3)).to.deep.equal(['progress:validating', 'progress:saving', 'completion']);
    const entries = await activity('skill.generate');
    expect(entries).to.have.length(1);
    const ownerRow = await t.server.services.db.knex('users').where({ role: 'owner' }).first();
    expect(entries[0]).to.include({ target_type: 'skill', target_id: completion!.data.skill_id, target_name: 'csv-cleaner' });
    expect(entries[0].actor_id).to.equal(ownerRow.id);
    expect(entries[0].outcome).to.equal('success');
  });

  it('validates the generated SKILL.md: no frontmatter or a bad name is an error event and nothing is stored', async () => {
    for (const [reply, problem] of [
      ['Sure! Here is your skill: it builds reports.', /must start with a YAML frontmatter block/],
      [skillMd('Bad_Name'), /name must be 1-64 lowercase letters/],
    ] as const) {
      openai.reply('chat', { content: reply });
      const conn = await generate({ intent: 'Build reports' });
      expect(conn.status).to.equal(200);
      const events = await conn.rest();
      expect(events.at(-1)!.event).to.equal('error');
      expect(events.at(-1)!.data.code).to.equal('invalid_skill');
      expect(events.at(-1)!.data.detail).to.match(problem);
      expect(events.map((e) => e.event)).to.not.include('completion');
    }
    expect(await skillNamed('Bad_Name')).to.equal(undefined);
    expect(await activity('skill.generate')).to.have.length(1); // the earlier test's only
  });

  it('unwraps a code fence around the file and gives the skill the requested name', async () => {
    openai.reply('chat', { content: `\`\`\`markdown\n${skillMd('whatever-name')}\`\`\`\n` });
    const conn = await generate({ intent: 'Summarise meeting notes', name: 'meeting-notes', save: false });
    const events = await conn.rest();
    const done = events.at(-1)!;
    expect(done.event).to.equal('completion');
    expect(done.data.name).to.equal('meeting-notes');
    expect(done.data.skill_md).to.match(/^---\nname: meeting-notes\n/);
    expect(chatRequests()[0]!.body.messages.at(-1).content).to.include('meeting-notes');
  });

  it('closing the connection mid-stream aborts the model call and saves nothing', async () => {
    const held = gate();
    openai.reply('chat', { chunks: pieces(skillMd('abandoned-skill')), gate: { afterChunks: 1, open: held.opened } });
    const conn = await generate({ intent: 'Something I will not wait for', name: 'abandoned-skill' });
    expect(conn.status).to.equal(200);
    for (let e = await conn.next(); e && e.event !== 'token'; e = await conn.next());
    conn.close();
    const upstream = await waitFor('the model call to be aborted', () => chatRequests()[0]?.aborted);
    expect(upstream).to.equal(true);
    held.open();
    // Whatever the model would have sent next, nothing is saved (checked after it had every chance).
    await waitFor('the server to settle', async () => (await t.anon.get('/health')).status === 200);
    expect(await skillNamed('abandoned-skill')).to.equal(undefined);
    expect(await activity('skill.generate')).to.have.length(1);
  });

  it('a provider failure (503) is an error event that does not carry the API key', async () => {
    openai.reply('chat', { status: 503, error: { message: `overloaded (key ${apiKey})` } });
    const conn = await generate({ intent: 'Anything' });
    expect(conn.status).to.equal(200);
    const events = await conn.rest();
    expect(events.at(-1)!.event).to.equal('error');
    expect(events.at(-1)!.data.code).to.match(/^ai_/);
    expect(containsSecret(JSON.stringify(events), apiKey)).to.equal(false);
    expect(containsSecret(capturedLogs.join(''), apiKey)).to.equal(false);
  });

  it('a model that stops at its token limit, or picks a name that exists, ends in an error event and saves nothing new', async () => {
    openai.reply('chat', { content: skillMd('cut-short'), finishReason: 'length' });
    const cut = await (await generate({ intent: 'A long skill' })).rest();
    expect(cut.at(-1)!.event).to.equal('error');
    expect(cut.at(-1)!.data.code).to.equal('ai_output_truncated');
    expect(await skillNamed('cut-short')).to.equal(undefined);
    openai.reply('chat', { content: skillMd('csv-cleaner', 'Another CSV cleaner') });
    const clash = await (await generate({ intent: 'Clean CSV files again' })).rest();
    expect(clash.at(-1)!.event).to.equal('error');
    expect(clash.at(-1)!.data.code).to.equal('skill_name_taken');
    expect((await skillNamed('csv-cleaner')).description).to.equal('Cleans CSV files, trims cells and drops empty rows');
    expect(await activity('skill.generate')).to.have.length(1);
  });

  it('answers JSON errors before any event: 409 for an existing name (saving), 400 for an unknown or non-llm provider', async () => {
    const taken = await generate({ intent: 'Clean CSV files', name: 'csv-cleaner' });
    expect(taken.status).to.equal(409);
    expect(taken.body.code).to.equal('skill_name_taken');
    const unknown = await generate({ intent: 'x', provider_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.code).to.equal('ai_provider_not_found');
    const embedding = await t.owner.post('/api/v1/settings/providers', {
      provider_type: 'embedding',
      provider: 'openai',
      model: 'embed-test',
      api_key: apiKey,
      endpoint: openai.url,
    });
    expect(embedding.status).to.equal(201);
    const wrongType = await generate({ intent: 'x', provider_id: embedding.body.id });
    expect(wrongType.status).to.equal(400);
    expect(wrongType.body.code).to.equal('ai_provider_wrong_type');
    expect((await t.owner.delete(`/api/v1/settings/providers/${embedding.body.id}`)).status).to.equal(204);
    expect(chatRequests()).to.have.length(0);
  });

  it('is refused to members (403) and validates the body (422)', async () => {
    expect((await generate({ intent: 'x' }, member.key)).status).to.equal(403);
    expect((await generate({ intent: '' })).status).to.equal(422);
    expect((await generate({ intent: 'x', name: 'Not A Name' })).status).to.equal(422);
  });

  it('streams Anthropic thinking as thinking events when the provider has a thinking budget', async () => {
    const created = await t.owner.post('/api/v1/settings/providers', {
      provider_type: 'llm',
      provider: 'anthropic',
      model: 'claude-test',
      api_key: apiKey,
      endpoint: anthropic.url,
      config: { max_retries: 0, thinking_budget_tokens: 1024 },
    });
    expect(created.status).to.equal(201);
    anthropic.reply({ thinking: 'The user wants slides; plan the outline first.', text: skillMd('slide-maker', 'Makes slide decks') });
    const conn = await generate({ intent: 'Make slide decks', provider_id: created.body.id, save: false });
    const events = await conn.rest();
    const kinds = events.map((e) => e.event);
    expect(kinds).to.include('thinking');
    expect(kinds.indexOf('thinking')).to.be.lessThan(kinds.indexOf('token'));
    expect(
      events
        .filter((e) => e.event === 'thinking')
        .map((e) => e.data.text)
        .join(''),
    ).to.equal('The user wants slides; plan the outline first.');
    expect(kinds.at(-1)).to.equal('completion');
    expect(anthropic.requests[0]!.body.thinking).to.deep.equal({ type: 'enabled', budget_tokens: 1024 });
    expect((await t.owner.delete(`/api/v1/settings/providers/${created.body.id}`)).status).to.equal(204);
  });

  it('answers 409 before any event when no LLM provider is active', async () => {
    expect((await t.owner.delete(`/api/v1/settings/providers/${providerId}`)).status).to.equal(204);
    const res = await generate({ intent: 'Anything' });
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('no_active_llm_provider');
    expect(chatRequests()).to.have.length(0);
  });
});

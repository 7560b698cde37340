import { expect } from 'chai';
import { ibanValid, luhnValid, mayContainSecret, Redactor } from '../../../src/domain/redaction.js';

// Fixtures are assembled from parts so this file never holds a whole key-shaped literal.
const A = 'A'.repeat(16);
const alnum = (n: number): string => 'aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z'.repeat(8).slice(0, n);
const b64url = (n: number): string => 'aB3_dE5-gH7jK9mN1pQ2rS4tU6vW8xY0z'.repeat(8).slice(0, n);

const SECRETS: readonly [kind: string, secret: string][] = [
  ['private_key', ['-----BEGIN RSA PRIVATE', ' KEY-----\nMIIEowIBAAKCAQEA', alnum(60), '\n-----END RSA PRIVATE', ' KEY-----'].join('')],
  ['private_key', ['-----BEGIN OPENSSH PRIVATE', ' KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE', ' KEY-----'].join('')],
  ['aws_access_key', 'AKIA' + A.replace(/A/g, 'Q')],
  ['aws_access_key', 'ASIA' + 'Z7'.repeat(8)],
  ['github_token', 'ghp_' + alnum(36)],
  ['github_token', 'gho_' + alnum(36)],
  ['github_token', 'ghu_' + alnum(36)],
  ['github_token', 'ghs_' + alnum(36)],
  ['github_token', 'ghr_' + alnum(36)],
  ['github_token', 'github_pat_' + alnum(22) + '_' + alnum(59)],
  ['gitlab_token', 'glpat-' + b64url(20)],
  ['slack_token', 'xoxb-' + '1234567890-1234567890123-' + alnum(24)],
  ['slack_token', 'xoxp-' + '1234567890-' + alnum(12)],
  ['stripe_key', 'sk_live_' + alnum(24)],
  ['stripe_key', 'rk_live_' + alnum(24)],
  ['google_api_key', 'AIza' + b64url(35)],
  ['anthropic_key', 'sk-ant-api03-' + b64url(95)],
  ['openai_key', 'sk-proj-' + b64url(48)],
  ['openai_key', 'sk-' + alnum(20) + 'T3BlbkFJ' + alnum(20)],
  ['openai_key', 'sk-' + alnum(48)],
  ['jwt', 'eyJhbGciOiJIUzI1NiJ9' + '.' + 'eyJzdWIiOiIxMjM0In0' + '.' + b64url(43)],
  ['toolgate_key', 'tg_usr_live_' + b64url(43)],
  ['toolgate_key', 'acme_bdl_' + b64url(43)],
];

describe('secret and personal-data redaction', () => {
  const secrets = new Redactor({ secrets: true, pii: false });

  for (const [kind, secret] of SECRETS) {
    it(`redacts a ${kind} (${secret.slice(0, 8)}…) inside text, and counts it`, () => {
      const text = `before ${secret} after`;
      expect(mayContainSecret(text)).to.equal(true);
      const r = secrets.redactText(text);
      expect(r.value).to.equal(`before [REDACTED:${kind}] after`);
      expect(r.count).to.equal(1);
      // Alone, at the very start and end of the text, too.
      expect(mayContainSecret(secret), 'alone').to.equal(true);
      expect(secrets.redactText(secret).value).to.equal(`[REDACTED:${kind}]`);
    });
  }

  it('finds Slack and GitLab tokens from their dash, after runs of their own first letters too', () => {
    for (const prefix of ['xoxb-', 'xoxp-', 'glpat-']) {
      const token = prefix + alnum(24);
      for (const text of [token, 'x'.repeat(1000) + ' ' + token, 'g'.repeat(1000) + ' ' + token + ' ' + '-'.repeat(100)]) {
        expect(mayContainSecret(text), `${prefix} in ${text.length} characters`).to.equal(true);
        expect(secrets.redactText(text).count).to.equal(1);
      }
    }
    // Dashes, x and g alone are no marker.
    expect(mayContainSecret('x'.repeat(1024))).to.equal(false);
    expect(mayContainSecret('-'.repeat(1024))).to.equal(false);
    expect(mayContainSecret('2026-11-28 x-ray ox-bow xo-x gl-pat')).to.equal(false);
  });

  it('finds every secret after a long run of each scanned character, and nothing in the runs alone', () => {
    for (const ch of ['A', 'K', 'k', 'J', '_', '-', 'x', 'g']) {
      const run = ch.repeat(1000);
      expect(mayContainSecret(run), `a run of ${ch}`).to.equal(false);
      for (const [kind, secret] of SECRETS) {
        const text = `${run} ${secret} ${run}`;
        expect(mayContainSecret(text), `${kind} after a run of ${ch}`).to.equal(true);
        expect(secrets.redactText(text).count, `${kind} after a run of ${ch}`).to.equal(1);
      }
    }
  });

  it('redacts a private key block cut short to the end of the text', () => {
    const r = secrets.redactText(['key: -----BEGIN PRIVATE', ' KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC'].join(''));
    expect(r).to.deep.equal({ value: 'key: [REDACTED:private_key]', count: 1 });
  });

  it('keeps the label of a labelled AWS secret access key and redacts its value', () => {
    const value = alnum(30) + '/+' + alnum(8);
    for (const text of [`aws_secret_access_key = ${value}`, `"SecretAccessKey": "${value}"`, `AWS_SECRET_ACCESS_KEY=${value}`]) {
      const r = secrets.redactText(text);
      expect(r.count, text).to.equal(1);
      expect(r.value).to.contain('[REDACTED:aws_secret_key]');
      expect(r.value).to.not.contain(value);
    }
    // The same 40 characters without a label are left alone.
    expect(secrets.redactText(`checksum ${value}`).count).to.equal(0);
  });

  it('leaves look-alikes and ordinary text alone', () => {
    const negatives = [
      'the quick brown fox jumps over the lazy dog',
      'AKIA' + 'short', // too short for a key id
      'xAKIA' + A.replace(/A/g, 'Q'), // part of a longer word
      'ghp_' + alnum(20), // too short
      'ghx_' + alnum(36), // not a GitHub prefix
      'sk-learn-is-a-python-library-for-machine-learning', // not a key shape
      'sk_test_' + alnum(24), // Stripe test keys are not secrets worth hiding
      'eyJhbGciOiJIUzI1NiJ9', // a lone base64 JSON header is no token
      'version 1.2.3, path /usr/bin/env, id 123e4567-e89b-12d3-a456-426614174000',
      '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC\n-----END PUBLIC KEY-----',
      'tg_usr_live_tooshort',
      'user@example.com +49 30 1234567 4111 1111 1111 1111',
    ];
    for (const text of negatives) {
      const r = secrets.redactText(text);
      expect(r.count, text).to.equal(0);
      expect(r.value).to.equal(text);
    }
  });

  it('walks only string leaves and copies only what changed', () => {
    const key = 'AKIA' + 'Q'.repeat(16);
    const untouched = { a: [1, 2, { b: 'plain' }] };
    const value = {
      content: [
        { type: 'text', text: `id ${key}` },
        { type: 'text', text: 'nothing' },
      ],
      untouched,
      [key]: true,
    };
    const r = secrets.redactValue(value);
    expect(r.count).to.equal(1);
    expect(r.value.content[0]!.text).to.equal('id [REDACTED:aws_access_key]');
    expect(r.value.content[1]).to.equal(value.content[1]);
    expect(r.value.untouched).to.equal(untouched);
    expect(value.content[0]!.text).to.equal(`id ${key}`); // the input is not changed
    expect(Object.keys(r.value)).to.include(key); // keys are not values
    const same = { x: ['nothing to see'] };
    expect(secrets.redactValue(same).value).to.equal(same);
  });

  it('counts every secret in one string', () => {
    const t = `${'ghp_' + alnum(36)} and ${'AKIA' + 'Q'.repeat(16)} and ${'ghp_' + alnum(36)}`;
    expect(secrets.redactText(t).count).to.equal(3);
  });

  it('redacts personal data only when asked: emails, Luhn-valid cards, valid IBANs, international phones', () => {
    const text = 'mail jane.doe@example.co.uk, card 4111 1111 1111 1111, iban DE89 3704 0044 0532 0130 00, phone +49 30 1234 5678';
    expect(secrets.redactText(text).count).to.equal(0);
    const pii = new Redactor({ secrets: true, pii: true });
    const r = pii.redactText(text);
    expect(r.value).to.equal('mail [REDACTED:email], card [REDACTED:card_number], iban [REDACTED:iban], phone [REDACTED:phone]');
    expect(r.count).to.equal(4);
    // Checksums keep look-alikes: a card number failing Luhn, an IBAN failing mod 97.
    expect(pii.redactText('order 4111 1111 1111 1112 ref DE89 3704 0044 0532 0130 01').count).to.equal(0);
  });

  it('checks Luhn and IBAN checksums', () => {
    expect(luhnValid('4111111111111111')).to.equal(true);
    expect(luhnValid('4111111111111112')).to.equal(false);
    expect(ibanValid('GB82 WEST 1234 5698 7654 32')).to.equal(true);
    expect(ibanValid('GB82 WEST 1234 5698 7654 33')).to.equal(false);
  });

  it('does nothing when both kinds are off', () => {
    const off = new Redactor({ secrets: false, pii: false });
    const text = 'AKIA' + 'Q'.repeat(16);
    expect(off.active).to.equal(false);
    expect(off.mayMatch(text)).to.equal(false);
    expect(off.redactText(text).count).to.equal(0);
  });
});

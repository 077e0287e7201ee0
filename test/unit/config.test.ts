import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { embeddedDataDirOf } from '../../src/config/data-dir.ts';

describe('configuration (one zod schema over environment variables)', () => {
  it('defaults: port 4000, ./data, embedded database, agency delay 2000 ms', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 4000, DATA_DIR: './data', AGENCY_SIM_DELAY_MS: 2000, WEBHOOK_ALLOW_PRIVATE: false });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
  });

  it('reads and converts values', () => {
    const c = loadConfig({ PORT: '8080', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS_MS: '1, 2,3,4,5,6', DATABASE_URL: 'postgresql://u@h:5432/db' });
    expect(c.PORT).toBe(8080);
    expect(c.WEBHOOK_ALLOW_PRIVATE).toBe(true);
    expect(c.WEBHOOK_RETRY_DELAYS_MS).toEqual([1, 2, 3, 4, 5, 6]);
    expect(c.DATABASE_URL).toBe('postgresql://u@h:5432/db');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'http://localhost'],
    ['WEBHOOK_RETRY_DELAYS_MS', '1,2,3'],
    ['WEBHOOK_ALLOW_PRIVATE', 'maybe'],
    ['ENCRYPTION_KEY', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['AGENCY_SIM_DELAY_MS', '-1'],
  ])('a bad %s (%s) stops start-up with a message naming it', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.variable)).toEqual([name]);
    expect((error as Error).message).toContain(name);
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'y' })).toThrow(/PORT[\s\S]*LOG_LEVEL|LOG_LEVEL[\s\S]*PORT/);
  });

  it('AGENCY_URL needs AGENCY_LINK_ID and AGENCY_SECRET_KEY', () => {
    expect(() => loadConfig({ AGENCY_URL: 'https://agency.example' })).toThrow(/AGENCY_LINK_ID[\s\S]*AGENCY_SECRET_KEY/);
    const c = loadConfig({ AGENCY_URL: 'https://agency.example', AGENCY_LINK_ID: 'SHOP', AGENCY_SECRET_KEY: 'x'.repeat(32) });
    expect(c.AGENCY_URL).toBe('https://agency.example');
    expect(() => loadConfig({ AGENCY_URL: 'ftp://agency.example', AGENCY_LINK_ID: 'SHOP', AGENCY_SECRET_KEY: 'x'.repeat(32) })).toThrow(/AGENCY_URL/);
  });

  it('rate limits default to 100/s with a burst of 1,000; 0 turns them off', () => {
    expect(loadConfig({})).toMatchObject({ RATE_LIMIT_PER_SECOND: 100, RATE_LIMIT_BURST: 1000, HTTP_HEADERS_TIMEOUT_MS: 10_000, HTTP_REQUEST_TIMEOUT_MS: 30_000 });
    expect(loadConfig({ RATE_LIMIT_PER_SECOND: '0' }).RATE_LIMIT_PER_SECOND).toBe(0);
  });

  it('an empty variable counts as unset', () => {
    expect(loadConfig({ PORT: '' }).PORT).toBe(4000);
  });
});

describe('the embedded database directory read before the configuration (src/main.ts)', () => {
  it('is the DATA_DIR loadConfig reads, and none with DATABASE_URL', () => {
    for (const env of [{}, { DATA_DIR: '' }, { DATA_DIR: '/var/lib/btp' }, { DATABASE_URL: '' }, { DATABASE_URL: '', DATA_DIR: 'x' }]) {
      expect(embeddedDataDirOf(env), JSON.stringify(env)).toBe(loadConfig(env).DATA_DIR);
    }
    expect(embeddedDataDirOf({ DATABASE_URL: 'postgresql://db/app', DATA_DIR: 'x' })).toBeNull();
  });
});

/**
 * Integration and end-to-end tests only ever touch the test database, whose name
 * proves what it is (the reset refuses any database not ending in `_test`).
 */
export const TEST_DATABASE_URL = process.env.WAGGLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/waggle_test';
process.env.DATABASE_URL = TEST_DATABASE_URL;
/**
 * Tests keep their queues and registry in their own Redis database, emptied once per
 * run, so a development stack on the same Redis never takes a test's jobs or the reverse.
 */
export const TEST_REDIS_URL = process.env.WAGGLE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/13';
process.env.REDIS_URL = TEST_REDIS_URL;
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL ??= 'warn';
/**
 * The event-loop delay check sheds by the clock: on a loaded CI machine it would refuse a test's
 * request now and then (a service streaming a file of several MiB lagged past it once). Tests run
 * with it off unless they set it; the in-flight bounds stay on. The check's logic has its unit
 * spec (libs/platform/src/overload), and `npm run bench:overload` measures it at its defaults.
 */
process.env.MAX_EVENT_LOOP_DELAY_MS ??= '0';

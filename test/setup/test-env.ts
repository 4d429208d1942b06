/**
 * Integration and end-to-end tests only ever touch the test database, whose name
 * proves what it is (the reset refuses any database not ending in `_test`).
 */
export const TEST_DATABASE_URL = process.env.WAGGLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/waggle_test';
process.env.DATABASE_URL = TEST_DATABASE_URL;
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL ??= 'warn';

// Integration and end-to-end tests start real processes and connections.
jest.setTimeout(60_000);

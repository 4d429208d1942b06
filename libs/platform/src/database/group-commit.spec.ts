import { GroupCommit } from './group-commit';

/** A batch runner the test releases by hand, recording every batch it was given. */
function manualRunner() {
  const batches: string[][] = [];
  const releases: Array<() => void> = [];
  const run = (items: string[]) => {
    batches.push(items);
    return new Promise<Array<string | Error>>((resolve) =>
      releases.push(() => resolve(items.map((item) => (item.startsWith('bad') ? new Error(`${item} failed`) : item.toUpperCase())))),
    );
  };
  return { batches, releases, run };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('sends an item at once when a slot is free, and groups the ones that arrive while slots are busy', async () => {
    const runner = manualRunner();
    const commit = new GroupCommit<string, string>({ run: runner.run, keyOf: (item) => item, maxBatch: 10, maxInFlight: 1 });
    const first = commit.submit('a');
    const rest = ['b', 'c', 'd'].map((item) => commit.submit(item));
    expect(runner.batches).toEqual([['a']]);
    runner.releases[0]?.();
    expect(await first).toBe('A');
    await settle();
    expect(runner.batches).toEqual([['a'], ['b', 'c', 'd']]);
    runner.releases[1]?.();
    expect(await Promise.all(rest)).toEqual(['B', 'C', 'D']);
  });

  it('never puts two items with one key in a batch, and caps the batch size', async () => {
    const runner = manualRunner();
    const commit = new GroupCommit<string, string>({ run: runner.run, keyOf: (item) => item.slice(0, 1), maxBatch: 2, maxInFlight: 1 });
    const all = [commit.submit('x0'), commit.submit('x1'), commit.submit('y1'), commit.submit('z1'), commit.submit('x2')];
    for (let round = 0; round < 4; round += 1) {
      runner.releases[round]?.();
      await settle();
    }
    expect(runner.batches).toEqual([['x0'], ['x1', 'y1'], ['z1', 'x2']]);
    expect(await Promise.all(all)).toEqual(['X0', 'X1', 'Y1', 'Z1', 'X2']);
  });

  it('fails only the item whose result is an error', async () => {
    const runner = manualRunner();
    const commit = new GroupCommit<string, string>({ run: runner.run, keyOf: (item) => item, maxBatch: 10, maxInFlight: 2 });
    const good = commit.submit('good');
    const bad = commit.submit('bad');
    runner.releases.forEach((release) => release());
    await expect(good).resolves.toBe('GOOD');
    await expect(bad).rejects.toThrow('bad failed');
  });

  it('reruns each item of a failed batch alone, so one bad row does not fail its neighbours', async () => {
    const seen: string[][] = [];
    const commit = new GroupCommit<string, string>({
      run: async (items) => {
        seen.push(items);
        if (items.includes('poison')) throw new Error('statement failed');
        return items.map((item) => item.toUpperCase());
      },
      keyOf: (item) => item,
      maxBatch: 10,
      maxInFlight: 1,
    });
    const blocker = commit.submit('first');
    const results = ['a', 'poison', 'b'].map((item) => commit.submit(item).catch((error: Error) => error.message));
    await blocker;
    expect(await Promise.all(results)).toEqual(['A', 'statement failed', 'B']);
    expect(seen).toEqual([['first'], ['a', 'poison', 'b'], ['a'], ['poison'], ['b']]);
  });
});

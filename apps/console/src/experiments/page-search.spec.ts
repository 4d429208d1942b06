import { parsePageSearch } from './page-search';

describe('parsePageSearch', () => {
  it('keeps a page and a version given as numbers or digits', () => {
    expect(parsePageSearch({ page: '2', version: 3 })).toEqual({ page: 2, version: 3 });
  });

  it('drops the first page, a version 0 and anything that is not a whole number', () => {
    expect(parsePageSearch({ page: 0, version: 0 })).toEqual({});
    expect(parsePageSearch({ page: 'x', version: 1.5, other: 1 })).toEqual({});
  });
});

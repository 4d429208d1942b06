import { parseVariantSearch } from './variant-search';

describe('parseVariantSearch', () => {
  it('keeps version numbers given as numbers or digits', () => {
    expect(parseVariantSearch({ from: 1, to: '3' })).toEqual({ from: 1, to: 3 });
  });

  it('drops anything else', () => {
    expect(parseVariantSearch({ from: 0, to: 'x', other: 2 })).toEqual({});
    expect(parseVariantSearch({ from: -1, to: 1.5 })).toEqual({});
  });
});

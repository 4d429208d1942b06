import { decodeText, renderPages, renderRows, renderSheets } from './text-rendering';

describe('renderRows', () => {
  it('renders a Markdown table whose first row is the header, padding short rows', () => {
    expect(
      renderRows([
        ['name', 'units', 'colour'],
        ['Widget', '42'],
        ['Lamp', '7', 'green', 'extra'],
      ]),
    ).toBe(
      ['| name | units | colour |  |', '| --- | --- | --- | --- |', '| Widget | 42 |  |  |', '| Lamp | 7 | green | extra |'].join('\n'),
    );
  });

  it('escapes pipes and keeps line breaks inside a cell', () => {
    expect(renderRows([['a|b', 'line 1\r\nline 2']])).toBe('| a\\|b | line 1<br>line 2 |\n| --- | --- |');
  });

  it('says so when there are no rows', () => {
    expect(renderRows([])).toBe('(no rows)');
    expect(renderRows([[]])).toBe('(no rows)');
  });
});

describe('renderPages', () => {
  it('marks every page with its number and the count', () => {
    expect(renderPages(['First page\r\ntext', '', 'Third'])).toBe(
      '--- Page 1 of 3 ---\nFirst page\ntext\n\n--- Page 2 of 3 ---\n(no text on this page)\n\n--- Page 3 of 3 ---\nThird',
    );
    expect(renderPages([])).toBe('(no pages)');
  });
});

describe('renderSheets', () => {
  it('puts each sheet under a heading with its name', () => {
    expect(
      renderSheets([
        { name: 'Inventory', hidden: false, rows: [['Item'], ['Lamp']] },
        { name: 'Old', hidden: true, rows: [] },
      ]),
    ).toBe('## Sheet: Inventory\n\n| Item |\n| --- |\n| Lamp |\n\n## Sheet: Old (hidden)\n\n(empty sheet)');
  });
});

describe('decodeText', () => {
  it('decodes UTF-8 without its byte-order mark and with \\n line ends', () => {
    expect(decodeText(Buffer.from('\uFEFFGrüße\r\nzwei\rdrei', 'utf8'))).toBe('Grüße\nzwei\ndrei');
  });

  it('falls back to Latin-1 for bytes that are not UTF-8', () => {
    expect(decodeText(Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65]))).toBe('Grüße');
  });
});

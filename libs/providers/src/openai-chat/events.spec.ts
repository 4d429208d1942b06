import { createParser } from 'eventsource-parser';
import { EventDataSplitter } from './events';

/** What eventsource-parser (the AI SDK's event-stream parser) gives for the same text, fed in the same pieces. */
function reference(pieces: string[]): string[] {
  const data: string[] = [];
  const parser = createParser({ onEvent: (event) => data.push(event.data) });
  for (const piece of pieces) parser.feed(piece);
  return data;
}

function split(pieces: string[]): string[] {
  const splitter = new EventDataSplitter();
  return pieces.flatMap((piece) => splitter.push(piece));
}

/** The text cut at every `size` characters. */
function cut(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

describe('EventDataSplitter', () => {
  const STREAMS: Array<[string, string]> = [
    ['LF line ends', 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n'],
    ['CRLF line ends', 'data: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n'],
    ['CR line ends', 'data: {"a":1}\r\rdata: two\r\r'],
    ['comments, event, id and retry lines', ': keep-alive\n\nevent: message\nid: 7\nretry: 10\ndata: x\n\n'],
    ['several data lines in one event', 'data: one\ndata: two\ndata:three\ndata\n\n'],
    ['no space after the colon, and a field that only starts with data', 'data:{"a":1}\ndatum: no\n\n'],
    ['an event the stream ends in before its blank line', 'data: whole\n\ndata: cut'],
    ['unicode', 'data: {"t":"héllo – 世界 🐝"}\n\n'],
  ];

  it.each(STREAMS)('gives the data eventsource-parser gives: %s, whole and cut anywhere', (_name, text) => {
    for (const size of [1, 2, 3, 5, 7, 64, text.length]) {
      expect(split(cut(text, size))).toEqual(reference(cut(text, size)));
    }
    expect(split([text]).length).toBeGreaterThan(0);
  });
});

/**
 * Server-sent events as chat-completions streams them: the `data` of each event (its `data:`
 * lines joined by newlines), fed text as it arrives. Comments, `event:`, `id:` and `retry:`
 * lines are skipped; lines end with LF, CRLF or CR, as the event-stream format allows. An event
 * the stream ends in before its closing blank line is dropped, as the AI SDK drops it.
 */
export class EventDataSplitter {
  private buffered = '';
  private data: string[] = [];
  /** The last chunk ended with CR: a LF opening the next one belongs to the same line end. */
  private afterCarriageReturn = false;

  /** The data of every event the text completes. */
  push(text: string): string[] {
    let input = text;
    if (this.afterCarriageReturn && input.startsWith('\n')) input = input.slice(1);
    this.afterCarriageReturn = input.endsWith('\r');
    const events: string[] = [];
    let start = 0;
    const all = this.buffered + input;
    this.buffered = '';
    for (;;) {
      const lineEnd = nextLineEnd(all, start);
      if (lineEnd === -1) break;
      this.line(all.slice(start, lineEnd), events);
      start = lineEnd + (all[lineEnd] === '\r' && all[lineEnd + 1] === '\n' ? 2 : 1);
    }
    this.buffered = all.slice(start);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (!line.startsWith('data')) return;
    if (line.length === 4) this.data.push('');
    else if (line[4] === ':') this.data.push(line[5] === ' ' ? line.slice(6) : line.slice(5));
  }
}

function nextLineEnd(text: string, from: number): number {
  const lf = text.indexOf('\n', from);
  const cr = text.indexOf('\r', from);
  if (cr === -1) return lf;
  if (lf === -1) return cr;
  return Math.min(lf, cr);
}

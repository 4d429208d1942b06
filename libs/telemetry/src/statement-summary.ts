/** What a database span keeps of a statement: its operation, its table, and its text with no values. */
export interface StatementSummary {
  /** The statement with every literal replaced by `?`; `$n` parameters stay as they are. */
  text: string;
  /** SELECT, INSERT, UPDATE, DELETE, BEGIN…; for a `WITH` statement, the main statement's. */
  operation?: string;
  /** The table it reads or writes first, without schema or quotes. */
  table?: string;
}

/** String literals (with '' escapes, E'' and dollar quoting) and numbers not part of a name or a `$n` parameter. */
const LITERALS = /(?:[eE])?'(?:[^']|'')*'|\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$|(?<![\w$."])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/g;
const NAME = String.raw`("(?:[^"]|"")+"|[A-Za-z_][\w$]*)(?:\s*\.\s*("(?:[^"]|"")+"|[A-Za-z_][\w$]*))?`;
const TABLE_AFTER: Record<string, RegExp> = {
  SELECT: new RegExp(String.raw`\bFROM\s+${NAME}`, 'i'),
  DELETE: new RegExp(String.raw`\bFROM\s+${NAME}`, 'i'),
  INSERT: new RegExp(String.raw`\bINTO\s+${NAME}`, 'i'),
  UPDATE: new RegExp(String.raw`\bUPDATE\s+(?:ONLY\s+)?${NAME}`, 'i'),
};

function unquote(name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name.toLowerCase();
}

/**
 * A statement as a database span records it (OpenTelemetry's database conventions: the
 * operation and collection, the query text sanitised). A CTE's own SELECTs are skipped: the
 * operation is the one that follows the last `)` at the top of a `WITH`.
 */
export function summarizeStatement(statement: string): StatementSummary {
  const text = statement.replace(LITERALS, '?');
  const first = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
  if (!first) return { text };
  let operation = first;
  let body = text;
  if (first === 'WITH') {
    const main = [...text.matchAll(/\)\s*(SELECT|INSERT|UPDATE|DELETE)\b/gi)].pop();
    if (main?.index !== undefined) {
      operation = main[1].toUpperCase();
      body = text.slice(main.index);
    }
  }
  const match = TABLE_AFTER[operation]?.exec(body);
  const table = match ? unquote(match[2] ?? match[1]) : undefined;
  return { text, operation, ...(table && { table }) };
}

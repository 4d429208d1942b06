/*
 * A thread's turns as the rest of the service sees them (what a run reads back and what it
 * stores), apart from the entities that map them to tables.
 */

/** An attachment as a thread keeps it: what the run accepted, so later turns may read it again. */
export interface StoredAttachment {
  url: string;
  kind: 'document' | 'image';
  name: string;
}

/** A turn of a stored thread, oldest first. */
export interface StoredTurn {
  role: 'user' | 'assistant';
  content: string;
  attachments: StoredAttachment[];
}

/** A thread as a run opens it: its id and its newest stored turns, oldest first. */
export interface OpenedThread {
  threadId: string;
  turns: StoredTurn[];
}

/** One tool call of a finished run, as the thread keeps it. */
export interface ToolCallRecord {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** The observation as the model got it (JSON text). */
  observation: string;
  durationMs: number;
}

/** A finished run's turn: the caller's message and the agent's answer. */
export interface FinishedTurn {
  threadId: string;
  requestId: string;
  message: string;
  attachments: StoredAttachment[];
  response: string;
  toolCalls: ToolCallRecord[];
}

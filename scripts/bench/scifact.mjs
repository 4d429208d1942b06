// BEIR SciFact for the retrieval bench: where the files are, and whether they are the ones the
// published figures were measured on (docs/benchmarks/retrieval.md, "The data set").
//
// The data set is not in the repository. Download BEIR's archive and unzip it anywhere:
//
//   curl -LO https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip
//   unzip scifact.zip            # makes scifact/corpus.jsonl, scifact/queries.jsonl, scifact/qrels/test.tsv
//
// then pass the folder: `npm run bench:retrieval -- --data ./scifact` (or SCIFACT_DIR=./scifact).
// Two layouts are read: BEIR's as unzipped (corpus.jsonl, queries.jsonl, qrels/test.tsv) and a
// repacked one (corpus.jsonl.gz, queries.jsonl, qrels-test.tsv). Either way the bench hashes what
// it reads and refuses to run on anything else:
//
//   corpus  the uncompressed corpus.jsonl           sha256sum scifact/corpus.jsonl
//   queries queries.jsonl as it is                  sha256sum scifact/queries.jsonl
//   qrels   qrels/test.tsv with every CR removed    tr -d '\r' < scifact/qrels/test.tsv | sha256sum
//
// (BEIR ships test.tsv with CRLF line endings; the repacked copy has LF. Both hash alike.)
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

export const SCIFACT_URL = 'https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip';
/** The archive's MD5 as BEIR publishes it (its README's dataset table); the bench checks the files, not the archive. */
export const SCIFACT_ZIP_MD5 = '5f7d1de60b170fc8027bb7898e2efca1';
export const SCIFACT_ENV = 'SCIFACT_DIR';
export const SCIFACT_DOC = 'docs/benchmarks/retrieval.md#the-data-set';

/** Each file the bench reads: where it is in either layout, how its bytes are hashed, and the SHA-256 expected. */
export const SCIFACT_FILES = [
  {
    name: 'corpus',
    paths: ['corpus.jsonl', 'corpus.jsonl.gz'],
    how: 'the uncompressed corpus.jsonl',
    verify: 'sha256sum scifact/corpus.jsonl',
    sha256: 'dec31c8182f3d744c7d2c09423756fd1d17cbef75808db13ba01cc0aab4d1ac6',
  },
  {
    name: 'queries',
    paths: ['queries.jsonl'],
    how: 'queries.jsonl as it is',
    verify: 'sha256sum scifact/queries.jsonl',
    sha256: '8ff84a7c903f722981cd8d595c022660140c51867b27608a6d4910db86080313',
  },
  {
    name: 'qrels',
    paths: ['qrels/test.tsv', 'qrels-test.tsv'],
    how: 'qrels/test.tsv with every carriage return removed',
    verify: "tr -d '\\r' < scifact/qrels/test.tsv | sha256sum",
    sha256: '68c0ac63f1c24b9e8ce497649694f09b2d0850bab7ec2b103cc66996f5f8b3a3',
  },
];

/** How to get the data set and check it, for every refusal. */
export function scifactHelp() {
  return [
    'The retrieval bench needs BEIR SciFact, which is not in the repository. Download and unzip it:',
    `  curl -LO ${SCIFACT_URL}`,
    `  md5sum scifact.zip            # BEIR publishes ${SCIFACT_ZIP_MD5}`,
    '  unzip scifact.zip',
    `then name the folder: npm run bench:retrieval -- --data ./scifact   (or ${SCIFACT_ENV}=./scifact)`,
    'The bench reads these files and checks their SHA-256:',
    ...SCIFACT_FILES.map((file) => `  ${file.name.padEnd(8)}${file.sha256}  ${file.how}: ${file.verify}`),
    `See ${SCIFACT_DOC}.`,
  ].join('\n');
}

/**
 * The folder named by --data, else by SCIFACT_DIR; undefined when neither is given. A relative
 * path is taken from where the command was typed (npm run moves to the repository's root).
 */
export function scifactDir(argv = process.argv, env = process.env) {
  const at = argv.indexOf('--data');
  const given = at > 0 ? argv[at + 1] : env[SCIFACT_ENV];
  return given ? resolve(env.INIT_CWD ?? process.cwd(), given) : undefined;
}

/** The bytes the bench reads of one file, as they are hashed (the corpus uncompressed, the qrels without CR). */
function contentOf(file, path) {
  const raw = readFileSync(path);
  if (path.endsWith('.gz')) return gunzipSync(raw);
  if (file.name === 'qrels') return Buffer.from(raw.toString('latin1').replaceAll('\r', ''), 'latin1');
  return raw;
}

/**
 * Finds and checks the data set in `dir`. Answers `{ ok: true, dir, files: { corpus, queries, qrels } }`
 * with each file's path, or `{ ok: false, problems }` saying what is missing or does not match.
 */
export function verifyScifact(dir) {
  if (!dir) return { ok: false, problems: [`no data set named: pass --data DIR or set ${SCIFACT_ENV}`] };
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return { ok: false, problems: [`${dir} is not a folder`] };
  const problems = [];
  const files = {};
  for (const file of SCIFACT_FILES) {
    const path = file.paths.map((candidate) => join(dir, candidate)).find((candidate) => existsSync(candidate));
    if (!path) {
      problems.push(`${file.name}: none of ${file.paths.join(', ')} in ${dir}`);
      continue;
    }
    const actual = createHash('sha256').update(contentOf(file, path)).digest('hex');
    if (actual !== file.sha256)
      problems.push(`${file.name}: ${path} does not match (SHA-256 of ${file.how}: ${actual}, expected ${file.sha256})`);
    files[file.name] = path;
  }
  return problems.length ? { ok: false, problems } : { ok: true, dir, files };
}

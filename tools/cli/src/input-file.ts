import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { CliFailure, EXIT } from './exit-codes';

/** A file named on the command line; one that cannot be read is a usage error (exit 64), named in one line. */
export async function readInputFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new CliFailure(EXIT.usage, `error: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** A YAML file named on the command line; one that does not parse is a usage error (exit 64) with the parser's first line. */
export async function readYamlFile<T>(path: string): Promise<T> {
  const text = await readInputFile(path);
  try {
    return parseYaml(text) as T;
  } catch (error) {
    throw new CliFailure(EXIT.usage, `error: ${path} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
}

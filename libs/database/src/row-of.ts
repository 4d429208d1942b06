/** `createdAt` → `created_at`: the column name the house convention gives a property. */
export type SnakeCase<Name extends string> = Name extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : Name;

/** The runtime twin of SnakeCase (the row-types test holds every entity to it). */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * A row of an entity's table as plain SQL returns it (`SELECT *`, `RETURNING *`): each column
 * property under its snake_case column name, with the entity's type. Relations are left out
 * by naming them in `Relations`. Deriving raw-SQL row types from the entity, rather than
 * typing them by hand beside it, makes a renamed or retyped column break compilation; the
 * test that every entity column is named snakeCase(property) and exists in the migrated
 * table makes the derivation true of the database.
 */
export type RowOf<Entity, Relations extends keyof Entity = never> = {
  [Property in Exclude<keyof Entity, Relations> as Property extends string ? SnakeCase<Property> : never]-?: Entity[Property];
};

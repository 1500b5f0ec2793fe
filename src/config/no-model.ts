/**
 * `none` as a role's model (`--judge none`, `judge: none` in a study): no model for that role, even
 * when the config names one; the role's documented fallback runs, recorded in the run's protocol.
 * A module of its own so that the CLI's option parsers read it without loading the config's schemas.
 */
export const NO_MODEL = 'none';

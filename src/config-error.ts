/**
 * A variable of the environment Vouch cannot use. Its own file, free of the config's schema
 * libraries, so that the CLI can name it without loading them for `--help`.
 */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

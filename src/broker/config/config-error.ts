// A broker config the broker refuses to start with. `samsa start` prints its message as one line.

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

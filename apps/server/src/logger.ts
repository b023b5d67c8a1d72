import pino, { type DestinationStream, type Logger } from 'pino';

/** Structured JSON logs. Fields that could carry credentials are redacted wherever they appear. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'password',
          '*.password',
          'token',
          '*.token',
          'apiKey',
          '*.apiKey',
          'headers.cookie',
          'headers["x-api-key"]',
          'secretKey',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

// The redaction rules live in store/ (the NATS exporter redacts what it publishes with them too).
export * from '../store/redact.ts';

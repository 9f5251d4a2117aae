#!/usr/bin/env node
// The package's command: loads the TypeScript entry point through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./hearth.ts');

#!/usr/bin/env node
// Entry point: the compiled CLI lives in dist/ (npm run build).
import '../dist/src/cli/main.js';

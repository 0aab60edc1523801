// `npm run docs`: writes the generated documents (src/docs/annotations.ts, pure) into docs/.
import { writeFileSync } from 'node:fs';
import { generatedDocs } from './annotations.js';

for (const [path, text] of Object.entries(generatedDocs())) writeFileSync(new URL(`../../../${path}`, import.meta.url), text);

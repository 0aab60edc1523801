// `npm run docs` (after the tables): writes docs/ingress-nginx-e2e.md from test/ingress-nginx/inventory.json.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../support/portico.js';
import { loadInventory, renderDoc } from './inventory.js';

writeFileSync(join(REPO, 'docs/ingress-nginx-e2e.md'), renderDoc(loadInventory(REPO)));

// `npm run docs`: writes the conformance section of docs/gateway-api.md from test/gateway-conformance/inventory.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../support/portico.js';
import { loadInventory } from './inventory.js';
import { renderSection, withSection } from './report-doc.js';

const path = join(REPO, 'docs/gateway-api.md');
const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
writeFileSync(path, withSection(readFileSync(path, 'utf8'), renderSection(loadInventory(REPO), version)));

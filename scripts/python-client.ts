/** Makes the Python MCP client's virtual environment ahead of the tests (CI): `npm run tools:python`. */
import { ensurePythonClient } from '../test/helpers/python-client.js';

process.stdout.write(`Python MCP client ready: ${ensurePythonClient()}\n`);

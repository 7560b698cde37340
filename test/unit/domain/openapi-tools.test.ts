import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { operationTools, requestPlan, toolResult, type OperationTool } from '../../../src/domain/openapi-tools.js';
import { dereferenceOpenApi, parseOpenApiDocument } from '../../../src/lib/openapi-document.js';
import { ROOT } from '../../helpers/contract.js';

const fixture = (name: string) => fs.readFileSync(path.join(ROOT, 'test/fixtures/openapi', name), 'utf8');

async function toolsOf(name: string): Promise<Map<string, OperationTool>> {
  const { tools } = operationTools(await dereferenceOpenApi(parseOpenApiDocument(fixture(name))));
  return new Map(tools.map((t) => [t.name, t]));
}

describe('OpenAPI → MCP tools', () => {
  it('makes one tool per operation of a 3.0 document, with input and output schemas in JSON Schema', async () => {
    const tools = await toolsOf('petstore-3.0.yaml');
    expect([...tools.keys()]).to.deep.equal(['listPets', 'createPet', 'getPet', 'deletePet', 'bigResponse']);
    const list = tools.get('listPets')!;
    expect(list.inputSchema).to.deep.equal({
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 1 }, tag: { type: ['string', 'null'] } },
    });
    // Not an object: wrapped as { result }.
    expect(list.wrapOutput).to.equal(true);
    expect(list.outputSchema!.required).to.deep.equal(['result']);
    expect(list.annotations).to.include({ readOnlyHint: true, destructiveHint: false });
    const get = tools.get('getPet')!;
    expect(get.inputSchema.required).to.deep.equal(['petId']);
    expect(Object.keys(get.inputSchema.properties as object)).to.deep.equal(['petId', 'X-Request-Tag']);
    expect(get.outputSchema!.type).to.equal('object');
    // The recursive `friends` reference is bounded: any value.
    const pet = get.outputSchema as any;
    expect(pet.allOf[1].properties.friends.items).to.deep.equal({});
    const create = tools.get('createPet')!;
    expect(create.bodyArg).to.equal('body');
    expect(create.inputSchema.required).to.deep.equal(['body']);
    expect((create.inputSchema.properties as any).body.properties.tag).to.deep.equal({ type: ['string', 'null'] });
    expect(tools.get('deletePet')!.annotations).to.include({ destructiveHint: true, readOnlyHint: false });
  });

  it('reads 3.1 documents as JSON Schema already', async () => {
    const tools = await toolsOf('petstore-3.1.json');
    expect((tools.get('getPet')!.outputSchema as any).properties.tag).to.deep.equal({ type: ['string', 'null'] });
    expect(tools.get('getPetName')!.wrapOutput).to.equal(true);
  });

  it('refuses documents of another version', () => {
    expect(() => parseOpenApiDocument('swagger: "2.0"\ninfo: {}\n')).to.throw(/OpenAPI 3.0 or 3.1/);
    expect(() => parseOpenApiDocument('openapi: [')).to.throw(/Not a YAML or JSON document/);
  });

  it('encodes path parameters as one segment and refuses dot segments', async () => {
    const get = (await toolsOf('petstore-3.0.yaml')).get('getPet')!;
    expect(requestPlan(get, { petId: 'a/b?c#d' }, 'http://api.test/v1/').url.href).to.equal('http://api.test/v1/pets/a%2Fb%3Fc%23d');
    expect(requestPlan(get, { petId: '../admin' }, 'http://api.test/v1').url.pathname).to.equal('/v1/pets/..%2Fadmin');
    for (const bad of ['..', '.', '']) expect(() => requestPlan(get, { petId: bad }, 'http://api.test/v1')).to.throw(/may not be empty/);
    expect(() => requestPlan(get, {}, 'http://api.test')).to.throw(/"petId" is required/);
    expect(() => requestPlan(get, { petId: '1', 'X-Request-Tag': 'a\r\nb: c' }, 'http://api.test')).to.throw(/line breaks/);
  });

  it('sends query parameters, headers and the JSON body', async () => {
    const tools = await toolsOf('petstore-3.0.yaml');
    const list = requestPlan(tools.get('listPets')!, { limit: 2, tag: 'cat' }, 'http://api.test/api?key=1');
    expect(list.url.href).to.equal('http://api.test/api/pets?key=1&limit=2&tag=cat');
    const create = requestPlan(tools.get('createPet')!, { body: { name: 'Rex' } }, 'http://api.test');
    expect(create).to.include({ method: 'POST', body: '{"name":"Rex"}' });
    expect(create.headers['content-type']).to.equal('application/json');
  });

  it('maps answers: JSON to structured content, errors to isError with status and body, cut bodies to errors', async () => {
    const tools = await toolsOf('petstore-3.0.yaml');
    const get = tools.get('getPet')!;
    expect(toolResult(get, 200, 'application/json', '{"id":"1","name":"Rex"}', false)).to.deep.equal({
      content: [{ type: 'text', text: '{"id":"1","name":"Rex"}' }],
      structuredContent: { id: '1', name: 'Rex' },
    });
    expect(toolResult(tools.get('listPets')!, 200, 'application/json; charset=utf-8', '[]', false).structuredContent).to.deep.equal({
      result: [],
    });
    expect(toolResult(get, 404, 'application/json', '{"error":"no pet"}', false)).to.deep.equal({
      isError: true,
      content: [{ type: 'text', text: 'HTTP 404: {"error":"no pet"}' }],
    });
    expect(toolResult(get, 200, 'application/json', '{"id":', true).isError).to.equal(true);
  });
});

import {
  maxStepsPerRun,
  parseWorkflowDefinitions,
  parseWorkflowYaml,
  validateWorkflowDefinitions,
  type DefinitionProblem,
} from './workflow-validation';
import { errorMessage, type NestedMessage } from '@waggle/errors';

const SKETCH = `
workflows:
  - deployment: company-brief
    variants:
      - name: default
        inputs: { topic: { type: text, required: true } }
        output: "{{ summary.output }}"
        steps:
          - { id: search, type: web_search, query: "{{ topic }}", num_results: 5 }
          - id: pages
            type: loop
            over: "{{ search.output.results }}"
            max_iterations: 10
            concurrency: 2
            steps:
              - { id: page, type: scrape, url: "{{ item.url }}", on_error: continue }
          - id: enough
            type: condition
            when: { all: [ { left: "{{ pages.output }}", op: is_not_empty } ] }
            then:
              - { id: summary, type: prompt, model: gpt-5.4-mini, messages: [ { role: user, content: "Summarise for {{ topic }}: {{ pages.output }}" } ] }
            else:
              - { id: summary, type: template, text: "No sources for {{ topic }}" }
`;

function sketch(): unknown {
  const parsed = parseWorkflowYaml(SKETCH);
  if (!parsed.ok) throw new Error('the sketch is valid YAML');
  return parsed.value;
}

/** A file of one deployment with one variant of these steps. */
function file(steps: unknown[], variant: Record<string, unknown> = {}): unknown {
  return {
    workflows: [
      {
        deployment: 'flow',
        variants: [{ name: 'default', inputs: { topic: { type: 'text', required: true } }, output: '', steps, ...variant }],
      },
    ],
  };
}

/** The problems as the 422 `details` carry them (field and English messages). */
function problems(input: unknown): Array<Pick<DefinitionProblem, 'field' | 'messages'>> {
  const result = parseWorkflowDefinitions(input);
  if (result.ok) throw new Error('expected problems, the definition was accepted');
  return result.problems.map(({ field, messages }) => ({ field, messages }));
}

const STEPS = 'workflows[0].variants[0].steps';
const catalog = (models: string[]) => ({ isKnownModel: async (model: string) => models.includes(model) });

describe('parseWorkflowDefinitions', () => {
  it('accepts the issue sketch, with defaults filled in', async () => {
    const result = await validateWorkflowDefinitions(sketch(), catalog(['gpt-5.4-mini']));
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    const [variant] = result.workflows[0].variants;
    expect(variant.inputs).toEqual({ topic: { type: 'text', required: true } });
    expect(variant.steps.map((step) => [step.id, step.type, step.on_error])).toEqual([
      ['search', 'web_search', 'fail'],
      ['pages', 'loop', 'fail'],
      ['enough', 'condition', 'fail'],
    ]);
    expect(variant.steps[1]).toMatchObject({ max_iterations: 10, concurrency: 2, steps: [{ id: 'page', on_error: 'continue' }] });
    expect(maxStepsPerRun(variant.steps)).toBe(1 + (1 + 10) + (1 + 1));
  });

  it('reports an unknown model at its path, asking the catalog once per model', async () => {
    const isKnownModel = jest.fn(async () => false);
    const input = file([
      { id: 'a', type: 'prompt', model: 'nope', messages: [{ role: 'user', content: 'x' }] },
      { id: 'b', type: 'prompt', model: 'nope', messages: [{ role: 'user', content: 'y' }] },
    ]);
    const reasons = [{ detail: 'workflow_model_unknown', params: { model: 'nope' } }];
    expect(await validateWorkflowDefinitions(input, { isKnownModel })).toEqual({
      ok: false,
      missing: false,
      problems: [
        { field: `${STEPS}[0].model`, messages: ['unknown model nope'], reasons },
        { field: `${STEPS}[1].model`, messages: ['unknown model nope'], reasons },
      ],
    });
    expect(isKnownModel).toHaveBeenCalledTimes(1);
  });

  it("carries each problem of ours as a message id beside its English text, zod's own texts as they are", () => {
    const reasonsOf = (input: unknown) => {
      const result = parseWorkflowDefinitions(input);
      if (result.ok) throw new Error('expected problems');
      for (const problem of result.problems)
        expect(problem.reasons.map((reason) => (typeof reason === 'string' ? reason : errorMessage(reason, 'en')))).toEqual(
          problem.messages,
        );
      return Object.fromEntries(result.problems.map((problem) => [problem.field, problem.reasons]));
    };
    const spanish = (reasons: Array<NestedMessage | string>) =>
      reasons.map((reason) => (typeof reason === 'string' ? reason : errorMessage(reason, 'es')));

    const shape = reasonsOf(
      file([
        { id: 'first', type: 'template', text: 'x', extra: 1 },
        { id: 'Bad', type: 'template', text: 'x' },
        { id: 'ask', type: 'prompt', model: 'm' },
      ]),
    );
    expect(spanish(shape[`${STEPS}[0].extra`])).toEqual(['no es un campo conocido']);
    // A refinement's problem (zod custom issue) carries its id too.
    expect(spanish(shape[`${STEPS}[2].messages`])).toEqual(['es obligatorio con model']);
    // A zod text of the schema (a pattern's message) is carried as English text.
    expect(shape[`${STEPS}[1].id`]).toEqual(['must be a lower-case letter, then lower-case letters, digits or "_" (at most 64)']);

    const meaning = reasonsOf(
      file([
        { id: 'first', type: 'template', text: '{{ nobody }}' },
        { id: 'topic', type: 'template', text: 'x' },
      ]),
    );
    expect(spanish(meaning[`${STEPS}[0].text`])).toEqual(['hace referencia a nobody, que no es ni una entrada ni un paso']);
    expect(spanish(meaning[`${STEPS}[1].id`])).toEqual(['topic también es el nombre de una entrada']);
  });

  it('reports a reference to an unknown name, to a later step and to the step itself', () => {
    expect(
      problems(
        file([
          { id: 'first', type: 'template', text: '{{ nobody }} {{ second.output }}' },
          { id: 'second', type: 'scrape', url: '{{ second.output }}' },
        ]),
      ),
    ).toEqual([
      {
        field: `${STEPS}[0].text`,
        messages: ['refers to nobody, which is neither an input nor a step', 'refers to step second, which does not run before this point'],
      },
      { field: `${STEPS}[1].url`, messages: ['refers to step second, which does not run before this point'] },
    ]);
  });

  it('accepts references to inputs and earlier steps, in every templated field', () => {
    const result = parseWorkflowDefinitions(
      file(
        [
          { id: 'search', type: 'web_search', query: '{{ topic }}' },
          {
            id: 'call',
            type: 'http',
            method: 'POST',
            url: 'https://x.test/{{ topic }}',
            headers: { 'x-q': '{{ search.output }}' },
            body: { list: ['{{ search.output.results }}'] },
          },
          {
            id: 'kb',
            type: 'knowledge_search',
            knowledge_base: 'kb-1',
            query: '{% for r in search.output.results %}{{ r.title }}{% endfor %}',
          },
          { id: 'ask', type: 'agent', agent: 'agent-1', message: '{{ kb.output }}', thread_id: '{{ topic }}' },
        ],
        { output: '{{ ask.output }} {{ call.output.status }}' },
      ),
    );
    expect(result.ok).toBe(true);
  });

  it('reports references to later steps in nested fields and the output', () => {
    expect(
      problems(
        file(
          [
            { id: 'call', type: 'http', method: 'POST', url: 'https://x.test', body: { list: [{ q: '{{ later.output }}' }] } },
            { id: 'later', type: 'template', text: 'x' },
            {
              id: 'inner',
              type: 'loop',
              over: '{{ later.output }}',
              max_iterations: 2,
              steps: [{ id: 'hidden', type: 'template', text: '{{ item }}' }],
            },
          ],
          { output: '{{ hidden.output }}' },
        ),
      ),
    ).toEqual([
      { field: `${STEPS}[0].body.list[0].q`, messages: ['refers to step later, which does not run before this point'] },
      { field: 'workflows[0].variants[0].output', messages: ['refers to step hidden, which does not run before this point'] },
    ]);
  });

  it('allows item and index only inside a loop, and evaluates over outside it', () => {
    expect(
      problems(
        file([
          { id: 'a', type: 'template', text: '{{ item }} {{ index }}' },
          {
            id: 'b',
            type: 'loop',
            over: '{{ item }}',
            max_iterations: 3,
            steps: [{ id: 'c', type: 'template', text: '{{ item.url }} {{ index }} {{ b.output }}' }],
          },
        ]),
      ),
    ).toEqual([
      {
        field: `${STEPS}[0].text`,
        messages: [
          "refers to item, which is defined only inside a loop's steps",
          "refers to index, which is defined only inside a loop's steps",
        ],
      },
      { field: `${STEPS}[1].over`, messages: ["refers to item, which is defined only inside a loop's steps"] },
      { field: `${STEPS}[1].steps[0].text`, messages: ['refers to step b, which does not run before this point'] },
    ]);
  });

  it("lets a loop's steps see each other in order and the loop's id only after it", () => {
    const result = parseWorkflowDefinitions(
      file([
        {
          id: 'outer',
          type: 'loop',
          over: '{{ topic }}',
          max_iterations: 5,
          steps: [
            { id: 'fetch', type: 'scrape', url: '{{ item }}' },
            {
              id: 'inner',
              type: 'loop',
              over: '{{ fetch.output.links }}',
              max_iterations: 5,
              concurrency: 10,
              steps: [{ id: 'sub', type: 'scrape', url: '{{ item }}-{{ fetch.output.title }}' }],
            },
            { id: 'note', type: 'template', text: '{{ index }}: {{ inner.output }}' },
          ],
        },
        { id: 'done', type: 'template', text: '{{ outer.output }}' },
      ]),
    );
    expect(result.ok).toBe(true);
  });

  it('reports a repeated step id, nested ones included, at the later one', () => {
    expect(
      problems(
        file([
          { id: 'a', type: 'template', text: 'x' },
          { id: 'l', type: 'loop', over: '{{ a.output }}', max_iterations: 2, steps: [{ id: 'a', type: 'template', text: 'y' }] },
          {
            id: 'c',
            type: 'condition',
            when: { any: [{ left: 1, op: 'eq', right: 1 }] },
            then: [{ id: 'c', type: 'template', text: 'z' }],
          },
        ]),
      ),
    ).toEqual([
      { field: `${STEPS}[1].steps[0].id`, messages: [`step id a is already used at ${STEPS}[0]`] },
      { field: `${STEPS}[2].then[0].id`, messages: [`step id c is already used at ${STEPS}[2]`] },
    ]);
  });

  it('lets then and else reuse an id, which later steps may reference, but not repeat one within a branch', () => {
    const branches = (then: unknown[]) =>
      file(
        [
          {
            id: 'check',
            type: 'condition',
            when: { all: [{ left: '{{ topic }}', op: 'is_empty' }] },
            then,
            else: [{ id: 'summary', type: 'template', text: 'b' }],
          },
          { id: 'after', type: 'template', text: '{{ summary.output }}' },
        ],
        { output: '{{ summary.output }}' },
      );
    expect(parseWorkflowDefinitions(branches([{ id: 'summary', type: 'template', text: 'a' }])).ok).toBe(true);
    expect(
      problems(
        branches([
          { id: 'summary', type: 'template', text: 'a' },
          { id: 'summary', type: 'template', text: 'again' },
        ]),
      ),
    ).toEqual([{ field: `${STEPS}[0].then[1].id`, messages: [`step id summary is already used at ${STEPS}[0].then[0]`] }]);
  });

  it('keeps a branch step invisible to the other branch', () => {
    expect(
      problems(
        file([
          {
            id: 'c',
            type: 'condition',
            when: { all: [{ left: '{{ topic }}', op: 'eq', right: 'x' }] },
            then: [{ id: 'yes', type: 'template', text: 'a' }],
            else: [{ id: 'no', type: 'template', text: '{{ yes.output }}' }],
          },
        ]),
      ),
    ).toEqual([{ field: `${STEPS}[0].else[0].text`, messages: ['refers to step yes, which does not run before this point'] }]);
  });

  it('reports bad enums, bounds, missing and unknown fields, every one with its path', () => {
    const result = parseWorkflowDefinitions(
      file([
        { id: 'search', type: 'web_search', query: '{{ topic }}', num_results: 21, country: 'France' },
        { id: 'Bad-Id', type: 'template', text: 'x' },
        { id: 'l', type: 'loop', over: '{{ search.output }}', max_iterations: 1001, concurrency: 11, steps: [{ id: 'm', type: 'scrape' }] },
        { id: 'l2', type: 'loop', over: '{{ search.output }}', steps: [{ id: 'n', type: 'teleport' }] },
        { id: 'h', type: 'http', method: 'FETCH', url: 'https://x.test', on_error: 'ignore', extra: true },
        { id: 'p', type: 'prompt', model: 'm' },
        { id: 'q', type: 'prompt' },
        { id: 'k', type: 'knowledge_search', knowledge_base: 'kb', query: 'q', search_type: 'fuzzy', limit: 0, threshold: 2 },
        {
          id: 'w',
          type: 'condition',
          when: {
            all: [
              { left: 'a', op: 'is_empty', right: 'b' },
              { left: 'a', op: 'eq' },
            ],
          },
          then: [],
        },
      ]),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.missing).toBe(true);
    const fields = Object.fromEntries(result.problems.map((problem) => [problem.field, problem.messages]));
    expect(Object.keys(fields).sort()).toEqual(
      [
        `${STEPS}[0].num_results`,
        `${STEPS}[0].country`,
        `${STEPS}[1].id`,
        `${STEPS}[2].max_iterations`,
        `${STEPS}[2].concurrency`,
        `${STEPS}[2].steps[0].url`,
        `${STEPS}[3].max_iterations`,
        `${STEPS}[3].steps[0].type`,
        `${STEPS}[4].method`,
        `${STEPS}[4].on_error`,
        `${STEPS}[4].extra`,
        `${STEPS}[5].messages`,
        `${STEPS}[6].model`,
        `${STEPS}[7].search_type`,
        `${STEPS}[7].limit`,
        `${STEPS}[7].threshold`,
        `${STEPS}[8].when.all[0].right`,
        `${STEPS}[8].when.all[1].right`,
        `${STEPS}[8].then`,
      ].sort(),
    );
    expect(fields[`${STEPS}[2].steps[0].url`]).toEqual(['is required']);
    expect(fields[`${STEPS}[3].max_iterations`]).toEqual(['is required']);
    expect(fields[`${STEPS}[3].steps[0].type`]).toEqual([
      'must be one of prompt, agent, knowledge_search, web_search, scrape, http, template, condition, loop, mcp_tool',
    ]);
    expect(fields[`${STEPS}[4].extra`]).toEqual(['is not a known field']);
    expect(fields[`${STEPS}[5].messages`]).toEqual(['is required with model']);
    expect(fields[`${STEPS}[1].id`]).toEqual(['must be a lower-case letter, then lower-case letters, digits or "_" (at most 64)']);
  });

  it('accepts an mcp_tool step: arguments templated like an http body (nested values too), none given meaning {}', () => {
    const result = parseWorkflowDefinitions(
      file(
        [
          {
            id: 'sum',
            type: 'mcp_tool',
            server: 'calc',
            tool: 'add',
            arguments: { a: '{{ topic }}', b: 2, nested: { list: ['{{ topic }}'] } },
          },
          { id: 'ping', type: 'mcp_tool', server: 'ci_2-x', tool: 'a/b.c' },
          { id: 'said', type: 'template', text: '{{ sum.output.sum }} {{ ping.output }}' },
        ],
        { output: '{{ said.output }}' },
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.workflows[0].variants[0].steps.slice(0, 2)).toEqual([
      {
        id: 'sum',
        type: 'mcp_tool',
        on_error: 'fail',
        server: 'calc',
        tool: 'add',
        arguments: { a: '{{ topic }}', b: 2, nested: { list: ['{{ topic }}'] } },
      },
      { id: 'ping', type: 'mcp_tool', on_error: 'fail', server: 'ci_2-x', tool: 'a/b.c', arguments: {} },
    ]);
  });

  it('reports an mcp_tool step: server id, tool name, arguments that are not an object, unknown fields and references', () => {
    expect(
      problems(
        file([
          { id: 'a', type: 'mcp_tool', server: 'Calc', tool: '', arguments: ['x'] },
          { id: 'b', type: 'mcp_tool', server: 'x'.repeat(25), tool: 't'.repeat(129), arguments: 'text', headers: {} },
          { id: 'c', type: 'mcp_tool', tool: 'add', arguments: { a: '{{ later.output }}', b: { deep: '{{ nobody }}' } } },
          { id: 'later', type: 'template', text: 'x' },
        ]),
      ),
    ).toEqual([
      { field: `${STEPS}[0].server`, messages: ['must be 1 to 24 lower-case letters, digits, "_" or "-"'] },
      { field: `${STEPS}[0].tool`, messages: [expect.stringMatching(/>=1/)] },
      { field: `${STEPS}[0].arguments`, messages: [expect.stringMatching(/expected record/)] },
      { field: `${STEPS}[1].server`, messages: ['must be 1 to 24 lower-case letters, digits, "_" or "-"'] },
      { field: `${STEPS}[1].tool`, messages: [expect.stringMatching(/<=128/)] },
      { field: `${STEPS}[1].arguments`, messages: [expect.stringMatching(/expected record/)] },
      { field: `${STEPS}[1].headers`, messages: ['is not a known field'] },
      { field: `${STEPS}[2].server`, messages: ['is required'] },
    ]);
    expect(
      problems(
        file([
          { id: 'c', type: 'mcp_tool', server: 'calc', tool: 'add', arguments: { a: '{{ later.output }}', b: { deep: '{{ nobody }}' } } },
          { id: 'later', type: 'template', text: 'x' },
        ]),
      ),
    ).toEqual([
      { field: `${STEPS}[0].arguments.a`, messages: ['refers to step later, which does not run before this point'] },
      { field: `${STEPS}[0].arguments.b.deep`, messages: ['refers to nobody, which is neither an input nor a step'] },
    ]);
  });

  it('reports deployment and variant names: their pattern and repeats', () => {
    const variant = { name: 'v', output: '', steps: [{ id: 'a', type: 'template', text: 'x' }] };
    expect(
      problems({
        workflows: [
          { deployment: 'one', variants: [variant, variant] },
          { deployment: 'one', variants: [{ ...variant, name: '-bad' }] },
          { deployment: '', variants: [] },
        ],
      }),
    ).toEqual([
      {
        field: 'workflows[2].deployment',
        messages: ['must start with a letter or digit, then letters, digits, "_", "." or "-" (at most 100)'],
      },
      { field: 'workflows[2].variants', messages: [expect.stringMatching(/>=1/)] },
      { field: 'workflows[0].variants[1].name', messages: ['variant v is already defined at workflows[0].variants[0]'] },
      { field: 'workflows[1].deployment', messages: ['deployment one is already defined at workflows[0]'] },
      {
        field: 'workflows[1].variants[0].name',
        messages: ['must start with a letter or digit, then letters, digits, "_", "." or "-" (at most 100)'],
      },
    ]);
  });

  it('reports reserved and clashing names, bad input defaults and invalid templates', () => {
    expect(
      problems(
        file(
          [
            { id: 'topic', type: 'template', text: 'x' },
            { id: 'item', type: 'template', text: '{{ x | no_such_filter }}' },
            { id: 'open', type: 'template', text: '{{ topic ' },
          ],
          {
            inputs: {
              topic: { type: 'text' },
              index: { type: 'number', default: 'three' },
              flag: { type: 'boolean', required: true, default: true },
            },
          },
        ),
      ),
    ).toEqual([
      { field: 'workflows[0].variants[0].inputs.index.default', messages: ['must be a number value'] },
      { field: 'workflows[0].variants[0].inputs.flag.default', messages: ['a required input takes no default'] },
    ]);
    expect(
      problems(
        file(
          [
            { id: 'topic', type: 'template', text: 'x' },
            { id: 'item', type: 'template', text: '{{ x | no_such_filter }}' },
            { id: 'open', type: 'template', text: '{{ topic ' },
          ],
          { inputs: { topic: { type: 'text' }, index: { type: 'number' } } },
        ),
      ),
    ).toEqual([
      { field: 'workflows[0].variants[0].inputs.index', messages: ['index is reserved'] },
      { field: `${STEPS}[0].id`, messages: ['topic is also an input name'] },
      { field: `${STEPS}[1].id`, messages: ['item is reserved'] },
      { field: `${STEPS}[1].text`, messages: [expect.stringMatching(/^is not a valid template: undefined filter: no_such_filter/)] },
      { field: `${STEPS}[2].text`, messages: [expect.stringMatching(/^is not a valid template: output "\{\{ topic " not closed/)] },
    ]);
  });

  it('still checks the references of a valid variant when another variant is malformed', () => {
    const input = {
      workflows: [
        {
          deployment: 'flow',
          variants: [
            { name: 'broken', output: '', steps: [{ id: 'a', type: 'scrape' }] },
            { name: 'fine', output: '{{ ghost }}', steps: [{ id: 'a', type: 'template', text: 'x' }] },
          ],
        },
      ],
    };
    expect(problems(input)).toEqual([
      { field: 'workflows[0].variants[0].steps[0].url', messages: ['is required'] },
      { field: 'workflows[0].variants[1].output', messages: ['refers to ghost, which is neither an input nor a step'] },
    ]);
  });

  it('answers a YAML syntax error and a file without workflows with one problem each', () => {
    expect(parseWorkflowYaml('workflows: [ {')).toEqual({
      ok: false,
      problems: [
        { field: '', messages: [expect.stringMatching(/^not valid YAML: /)], reasons: [expect.stringMatching(/^not valid YAML: /)] },
      ],
    });
    expect(problems({})).toEqual([{ field: 'workflows', messages: ['is required'] }]);
    expect(problems(null)).toEqual([{ field: '', messages: [expect.any(String)] }]);
  });

  it('accepts a prompt step of a deployed prompt, and refuses mixing the two forms', () => {
    expect(
      parseWorkflowDefinitions(
        file([{ id: 'p', type: 'prompt', deployment: 'brief', variant: 'default', inputs: { topic: '{{ topic }}' } }]),
      ).ok,
    ).toBe(true);
    expect(
      problems(
        file([
          { id: 'p', type: 'prompt', deployment: 'brief', variant: 'default', inputs: { topic: '{{ later.output }}' } },
          { id: 'later', type: 'template', text: '' },
        ]),
      ),
    ).toEqual([{ field: `${STEPS}[0].inputs.topic`, messages: ['refers to step later, which does not run before this point'] }]);
    expect(
      problems(file([{ id: 'p', type: 'prompt', deployment: 'brief', model: 'm', messages: [{ role: 'user', content: 'x' }] }])),
    ).toEqual([
      { field: `${STEPS}[0].deployment`, messages: ['a prompt step has either model and messages, or deployment and variant, not both'] },
    ]);
    expect(problems(file([{ id: 'p', type: 'prompt', deployment: 'brief', params: { temperature: 1 } }]))).toEqual([
      { field: `${STEPS}[0].variant`, messages: ['is required with deployment'] },
      { field: `${STEPS}[0].params`, messages: ['goes with model, not deployment'] },
    ]);
  });

  it("takes fallbacks and a response_format on a step naming a model, checked as a prompt variant's (D41, D42)", () => {
    const schema = { type: 'object', properties: { answer: { type: 'string', pattern: '^(a+)+$' } }, required: ['answer'] };
    const modelStep = (extra: Record<string, unknown>) => ({
      id: 'p',
      type: 'prompt',
      model: 'gpt-5.4-mini',
      messages: [{ role: 'user', content: '{{ topic }}' }],
      ...extra,
    });
    const accepted = parseWorkflowDefinitions(
      file([
        modelStep({
          fallbacks: ['claude-haiku-5-5', 'gemini-3.8-flash', 'mistral-small-latest'],
          response_format: { type: 'json_schema', name: 'brief', schema, strict: true },
          params: { temperature: 0.2 },
        }),
      ]),
    );
    expect(accepted).toMatchObject({
      ok: true,
      workflows: [{ variants: [{ steps: [{ fallbacks: ['claude-haiku-5-5', 'gemini-3.8-flash', 'mistral-small-latest'] }] }] }],
    });
    expect(
      problems(
        file([
          modelStep({
            fallbacks: ['a', 'b', 'c', 'd'],
            response_format: { type: 'json_schema', name: 'has space', schema: { type: 'objekt' }, strict: 'yes' },
          }),
        ]),
      ),
    ).toEqual([
      { field: `${STEPS}[0].fallbacks`, messages: [expect.stringMatching(/at most 3|<=3/)] },
      { field: `${STEPS}[0].response_format.name`, messages: ['must be 1 to 64 letters, digits, "_" or "-"'] },
      {
        field: `${STEPS}[0].response_format.schema`,
        messages: [expect.stringMatching(/^schema is not a valid JSON Schema \(draft 2020-12\): .*type/)],
      },
      { field: `${STEPS}[0].response_format.strict`, messages: [expect.any(String)] },
    ]);
    const big = { type: 'object', description: 'x'.repeat(64 * 1024) };
    expect(problems(file([modelStep({ response_format: { type: 'json_schema', schema: big } })]))).toEqual([
      { field: `${STEPS}[0].response_format.schema`, messages: ['schema may be at most 64 KiB of JSON'] },
    ]);
    // response_format moved out of params, beside model.
    expect(problems(file([modelStep({ params: { response_format: { type: 'json_schema', schema } } })]))).toEqual([
      { field: `${STEPS}[0].params.response_format`, messages: ['is not a known field'] },
    ]);
  });

  it('refuses fallbacks and a response_format on a step naming a deployment: its variant sets its own', () => {
    const step = { id: 'p', type: 'prompt', deployment: 'brief', variant: 'default' };
    const refused = parseWorkflowDefinitions(
      file([{ ...step, fallbacks: ['claude-haiku-5-5'], response_format: { type: 'json_schema', schema: { type: 'object' } } }]),
    );
    expect(refused).toMatchObject({ ok: false });
    if (refused.ok) return;
    const message = 'goes with model, not deployment (the deployed variant sets its own)';
    expect(refused.problems).toEqual([
      { field: `${STEPS}[0].fallbacks`, messages: [message], reasons: [{ detail: 'workflow_prompt_variant_sets' }] },
      { field: `${STEPS}[0].response_format`, messages: [message], reasons: [{ detail: 'workflow_prompt_variant_sets' }] },
    ]);
    expect(errorMessage(refused.problems[0].reasons[0] as NestedMessage, 'es')).toBe(
      'va con `model`, no con `deployment` (la variante desplegada define el suyo)',
    );
  });

  it('counts at most one loop body per iteration and the longer branch', () => {
    const result = parseWorkflowDefinitions(
      file([
        {
          id: 'l',
          type: 'loop',
          over: '{{ topic }}',
          max_iterations: 3,
          steps: [
            { id: 'a', type: 'template', text: '' },
            { id: 'b', type: 'template', text: '' },
          ],
        },
        {
          id: 'c',
          type: 'condition',
          when: { any: [{ left: 1, op: 'gt', right: 0 }] },
          then: [{ id: 'd', type: 'template', text: '' }],
          else: [
            { id: 'e', type: 'template', text: '' },
            { id: 'f', type: 'template', text: '' },
          ],
        },
      ]),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(maxStepsPerRun(result.workflows[0].variants[0].steps)).toBe(1 + 3 * 2 + 1 + 2);
  });
});

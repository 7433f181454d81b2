// The small endpoints vLLM's server has beside generation: health, version, models,
// tokenize/detokenize (vLLM's shapes), and the Prometheus metrics.
import type { FastifyInstance } from 'fastify';
import { badRequest } from './api-error.ts';
import { applyChatTemplate } from './chat-template.ts';
import { detokenizeSchema, parseBody, tokenizeSchemaFor } from './request-schemas.ts';
import { checkModel, contextLength, requireTokenizer, type ServeContext } from './serve-context.ts';

export function registerInfoRoutes(app: FastifyInstance, ctx: ServeContext, version: string): void {
  app.get('/health', (_request, reply) => reply.code(200).send(''));
  app.get('/version', () => ({ version }));
  app.get('/v1/models', () => ({
    object: 'list',
    data: [
      {
        id: ctx.modelName,
        object: 'model',
        created: ctx.startedAt,
        owned_by: 'kb',
        root: ctx.modelName,
        parent: null,
        max_model_len: contextLength(ctx),
        permission: [],
      },
    ],
  }));

  app.post('/tokenize', (request) => {
    const body = parseBody(tokenizeSchemaFor(request.body), request.body);
    checkModel(ctx, body.model);
    const tokenizer = requireTokenizer(ctx, 'messages' in body ? 'messages' : 'prompt');
    const text = 'messages' in body ? applyChatTemplate(body.messages, body.add_generation_prompt ?? true) : body.prompt;
    const tokens = tokenizer.encode(text);
    return {
      count: tokens.length,
      max_model_len: contextLength(ctx),
      tokens,
      token_strs: body.return_token_strs ? tokens.map((id) => tokenizer.decode([id])) : null,
    };
  });

  app.post('/detokenize', (request) => {
    const body = parseBody(detokenizeSchema, request.body);
    checkModel(ctx, body.model);
    const tokenizer = requireTokenizer(ctx, 'tokens');
    const vocab = ctx.engine.info.model.vocabSize;
    const bad = body.tokens.findIndex((id) => id >= vocab);
    if (bad !== -1) throw badRequest(`tokens.${bad}: ${body.tokens[bad]} is not a token id in [0, ${vocab})`, 'tokens');
    return { prompt: tokenizer.decode(body.tokens) };
  });

  app.get('/metrics', async (_request, reply) => {
    const { text, contentType } = await ctx.scrapeMetrics();
    return reply.type(contentType).send(text);
  });
}

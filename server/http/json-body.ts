import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from './errors.js';

/** How deep a JSON body may nest (objects and arrays); no route takes anything near it. */
export const maxJsonDepth = 64;

/**
 * express.json within a size limit and a nesting limit: a body nested deeper than `maxDepth` is an
 * `invalid` error (each API's 400/422) decided right after parsing, by a walk that keeps its own
 * stack: recursive code further on (validation, error echoes, JSON.stringify) never sees such a value.
 */
export function parseJsonBodies(options: { readonly limitKb: number; readonly maxDepth?: number }): RequestHandler {
  const parse = express.json({ limit: `${options.limitKb}kb` });
  const maxDepth = options.maxDepth ?? maxJsonDepth;
  return (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (nestingExceeds(req.body, maxDepth)) {
        const msg = `JSON nested deeper than ${maxDepth} levels`;
        return next(new AppError('invalid', msg, { issues: [{ loc: ['body'], msg, type: 'json_invalid' }], code: 'json_too_deep' }));
      }
      next();
    });
  };
}

/** Whether a parsed JSON value nests objects/arrays more than `maxDepth` deep (iterative: no recursion). */
export function nestingExceeds(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

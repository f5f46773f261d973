import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { mergeMap, type Observable } from 'rxjs';
import { DefinitionFreshness } from './definition-freshness.js';

/**
 * Every HTTP answer waits for the definition changes its request made to be announced to the other processes
 * sharing the database (DefinitionFreshness). Requests that changed none pass through without waiting.
 */
@Injectable()
export class DefinitionsAnnounced implements NestInterceptor {
  constructor(private readonly freshness: DefinitionFreshness) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      mergeMap(async (result: unknown) => {
        await this.freshness.announced();
        return result;
      }),
    );
  }
}

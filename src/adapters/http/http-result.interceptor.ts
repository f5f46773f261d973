import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, type Observable } from 'rxjs';
import { HttpResult, STATUS_OVERRIDE } from './http-result.js';

/** Unwraps HttpResult: headers now, status through the onSend hook registered in main (see STATUS_OVERRIDE). */
@Injectable()
export class HttpResultInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    return next.handle().pipe(
      map((value) => {
        if (!(value instanceof HttpResult)) return value;
        const reply = http.getResponse<FastifyReply>();
        reply.headers(value.headers);
        (http.getRequest<FastifyRequest>() as unknown as Record<symbol, number>)[STATUS_OVERRIDE] = value.status;
        return value.body;
      }),
    );
  }
}

import { Injectable, type PipeTransform } from '@nestjs/common';
import { problems } from '../problems/problem.js';

const RESOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Resource ids in paths: 1–128 URL-safe characters; anything else is a 400, not a lookup. */
@Injectable()
export class ResourceId implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!RESOURCE_ID.test(value))
      throw problems.badRequest(
        [{ pointer: '', message: 'resource ids are 1–128 characters of A–Z, a–z, 0–9, ".", "_", ":" and "-"' }],
        'Invalid resource id.',
      );
    return value;
  }
}

import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { JSONWebKeySet } from 'jose';
import { Public } from './auth/auth.decorators.js';

export const DEV_JWKS = Symbol('DEV_JWKS');

/** Development mode only: the public half of the local signing key, for clients that verify tokens too. */
@ApiExcludeController()
@Controller('.well-known')
export class DevJwksController {
  constructor(@Inject(DEV_JWKS) private readonly jwks: JSONWebKeySet) {}

  @Public()
  @Get('jwks.json')
  keys(): JSONWebKeySet {
    return this.jwks;
  }
}

export const CONFIG = Symbol('REVEILLE_CONFIG');

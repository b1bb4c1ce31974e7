// String formats used by the resource schemas. TypeBox's own checker knows no formats until they
// are registered; HTTP validation uses Ajv with ajv-formats instead.
import { FormatRegistry } from '@sinclair/typebox';
import { isUuid } from './ids.js';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', isUuid);
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)));

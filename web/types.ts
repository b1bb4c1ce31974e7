// Resources the console reads in more than one page, as the API answers them (the fields the
// console uses; the OpenAPI document at /openapi.json has them all).

/** An action item (GET /api/actions, GET /api/calls/{callId}/action-items). */
export interface ActionItem {
  id: string;
  callRecordId: string;
  title: string;
  description: string | null;
  dueDate: string | null;
  status: string;
  priority: string | null;
  source: string | null;
  intent: string | null;
  sourceSegmentIds: string[];
}

/** A contact of the user's (GET /api/contacts). */
export interface Contact {
  id: string;
  name: string;
  phoneNumber: string | null;
  email: string | null;
  notes: string | null;
}

// The configuration the service writes into the page (src/http/console.ts, consoleSettings).
export interface ConsoleSettings {
  mode: 'identity-provider' | 'api-key' | 'local';
  apiKeyRequired: boolean;
  identityProvider: { apiKey: string; authUrl: string; tokenUrl: string } | null;
  reanalyzeAvailable: boolean;
}

export const settings: ConsoleSettings = JSON.parse(document.getElementById('console-settings')?.textContent ?? '{}');

// Field names of the specification's resources, as the tests check them (sorted).

/** Usage limits (the limits endpoint and the admin grant-credits answer). */
export const LIMIT_FIELDS = [
  'activeCalls',
  'dailyTranscriptLimit',
  'maxConcurrentActiveCalls',
  'maxMonthlyUploadBytes',
  'maxUploadsPerHour',
  'minutesLimit',
  'minutesUsedThisPeriod',
  'plan',
  'topupMinutesBalance',
  'topupTranscriptsBalance',
  'transcriptsToday',
  'uploadedBytesThisMonth',
  'uploadsThisHour',
];

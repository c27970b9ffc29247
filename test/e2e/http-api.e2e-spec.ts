import { describeHttpApi } from './support/http-api-scenarios';

describeHttpApi('the embedded store', async () => ({ env: {}, cleanup: async () => undefined }));

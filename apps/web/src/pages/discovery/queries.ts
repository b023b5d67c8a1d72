import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { trpc, type Outputs } from '../../lib/api.ts';
import { markBillingStale, noteQuotaError } from '../../lib/account.ts';

export type DiscoveryJob = Outputs['discovery']['getJob'];
export type JobsOfConnection = Outputs['discovery']['activeJob'];

export const discoveryKeys = {
  jobs: (connectionId: string) => ['discovery', 'jobs', connectionId] as const,
  status: (connectionId: string) => ['schema', 'metadataStatus', connectionId] as const,
};

/** The running job (to re-attach to) and the last one that ended (with its summary). */
export function useJobs(connectionId: string) {
  return useQuery({
    queryKey: discoveryKeys.jobs(connectionId),
    queryFn: () => trpc.discovery.activeJob.query({ id: connectionId }),
  });
}

export function useMetadataStatus(connectionId: string) {
  return useQuery({
    queryKey: discoveryKeys.status(connectionId),
    queryFn: () => trpc.schema.metadataStatus.query({ id: connectionId }),
  });
}

export function useDiscoveryActions(connectionId: string) {
  const queryClient = useQueryClient();
  const setActive = (job: DiscoveryJob) =>
    queryClient.setQueryData<JobsOfConnection>(discoveryKeys.jobs(connectionId), (old) => ({
      job: job.state === 'queued' || job.state === 'running' ? job : null,
      last: old?.last ?? null,
      analysis: old?.analysis ?? null,
    }));
  const start = useMutation({
    mutationFn: (crossIndexLinks: boolean) =>
      trpc.discovery.startJob.mutate({ id: connectionId, cross_index_links: crossIndexLinks }),
    onSuccess: ({ job }) => {
      setActive(job);
      // An analysis uses an allowance: the billing page reads the usage again when next opened.
      markBillingStale(queryClient);
    },
    onError: (error) => noteQuotaError(queryClient, error),
  });
  const cancel = useMutation({
    mutationFn: (jobId: string) => trpc.discovery.cancelJob.mutate({ id: connectionId, job_id: jobId }),
  });
  return { start, cancel };
}

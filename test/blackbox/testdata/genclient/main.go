// Command genclient drives svc through the Go client oapi-codegen
// generated from GET /openapi.json (package client, beside this file when
// TestGeneratedClient runs it): sign-up, plan, execute, status. It exits
// non-zero, saying why, when a step does not answer as the document says.
//
//	go run . BASE_URL CLIENT_IP
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"gentest/client"
)

func main() {
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "genclient:", err)
		os.Exit(1)
	}
}

func run(base, clientIP string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := client.NewClientWithResponses(base)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}

	// sign up: an organization and its owner key
	email := openapi_types.Email(fmt.Sprintf("genclient-%d@example.com", time.Now().UnixNano()))
	name := "Generated client"
	fromIP := func(_ context.Context, r *http.Request) error { r.Header.Set("X-Forwarded-For", clientIP); return nil }
	signup, err := c.KeysCreateWithResponse(ctx, client.KeysCreateJSONRequestBody{Email: &email, Name: &name}, fromIP)
	if err != nil {
		return fmt.Errorf("sign-up: %w", err)
	}
	if signup.JSON201 == nil {
		return fmt.Errorf("sign-up: %d %s", signup.StatusCode(), signup.Body)
	}
	key := signup.JSON201.Key
	withKey := func(_ context.Context, r *http.Request) error { r.Header.Set("x-api-key", key); return nil }
	fmt.Printf("signed up: org %s, credits %d\n", signup.JSON201.OrgId, signup.JSON201.Credits)

	// plan
	planned, err := c.RigorPlanWithResponse(ctx, client.RigorPlanJSONRequestBody{
		TaskDescription: "Compare our SaaS pricing with three competitors for the board"}, withKey)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if planned.JSON200 == nil {
		return fmt.Errorf("plan: %d %s", planned.StatusCode(), planned.Body)
	}
	plan, err := planned.JSON200.AsPlanResponse()
	if err != nil || plan.Plan.WorkflowId == nil {
		return fmt.Errorf("plan: not a single plan (%v): %s", err, planned.Body)
	}
	id := *plan.Plan.WorkflowId
	fmt.Printf("planned %s: %s, %d steps, %d credits\n", id, plan.Plan.Classification.TaskType, len(plan.Plan.Sequence), plan.Plan.Cost.Credits)

	// execute the stored plan, delivered by polling
	var body client.RigorExecuteJSONRequestBody
	if err := json.Unmarshal([]byte(`{"delivery":{"method":"polling"}}`), &body); err != nil {
		return fmt.Errorf("execute body: %w", err)
	}
	body.WorkflowId = &id
	executed, err := c.RigorExecuteWithResponse(ctx, nil, body, withKey)
	if err != nil {
		return fmt.Errorf("execute: %w", err)
	}
	if executed.JSON200 == nil {
		return fmt.Errorf("execute: %d %s", executed.StatusCode(), executed.Body)
	}
	queued, err := executed.JSON200.AsExecuteResponse()
	if err != nil || queued.WorkflowId != id || queued.Status != client.ExecuteResponseStatusQueued {
		return fmt.Errorf("execute: not queued (%v): %s", err, executed.Body)
	}
	fmt.Printf("queued %s, poll %s\n", queued.WorkflowId, queued.PollUrl)

	// status, until the run ends
	for {
		status, err := c.RigorStatusWithResponse(ctx, id, nil, withKey)
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		if status.JSON200 == nil {
			return fmt.Errorf("status: %d %s", status.StatusCode(), status.Body)
		}
		wf := status.JSON200.Workflow
		switch wf.Status {
		case client.WorkflowStatusCompleted:
			if wf.Deliverable == nil || len(wf.Deliverable.Sections) == 0 || wf.QualityScore == nil {
				return fmt.Errorf("status: completed without a deliverable or a quality score: %s", status.Body)
			}
			fmt.Printf("completed: %q, %d sections, quality %d, %d credits\n", wf.Deliverable.Title, len(wf.Deliverable.Sections),
				*wf.QualityScore, wf.CreditsUsed)
			return nil
		case client.WorkflowStatusFailed, client.WorkflowStatusCancelled, client.WorkflowStatusHalted, client.WorkflowStatusTimedOut,
			client.WorkflowStatusCompletedPartial:
			return fmt.Errorf("status: the run ended %s: %s", wf.Status, status.Body)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("status: still %s: %w", wf.Status, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

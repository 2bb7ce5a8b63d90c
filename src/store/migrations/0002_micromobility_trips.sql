CREATE TABLE "micromobility_trips" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"environment" text NOT NULL,
	"provider_id" text NOT NULL,
	"provider_reference" text,
	"vehicle_id" text NOT NULL,
	"status" text NOT NULL,
	"details" jsonb NOT NULL,
	"user_location" jsonb,
	"user_location_until" timestamp with time zone,
	"reserved_until" timestamp with time zone,
	"started_at" timestamp with time zone,
	"paused_since" timestamp with time zone,
	"paused_ms" integer DEFAULT 0 NOT NULL,
	"ended_at" timestamp with time zone,
	"version" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "micromobility_trips" ADD CONSTRAINT "micromobility_trips_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "micromobility_trips_tenant_idx" ON "micromobility_trips" USING btree ("tenant_id","environment");--> statement-breakpoint
CREATE INDEX "micromobility_trips_vehicle_idx" ON "micromobility_trips" USING btree ("provider_id","vehicle_id","status");